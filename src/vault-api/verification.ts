// Credential verification (design.md "Verification"): the proof (Data Integrity eddsa-jcs-2022, the key
// found by resolving the issuer DID with this network's registry), the issuer DID's state, the on-chain
// status in the holder's vault, the issuer's access to it, and the validity period, in one answer
// (vault-api.yaml verifyCredential). Also the issuance rule that a vcData carrying a proof must verify
// against issuerDid's assertion keys (vc_proof_invalid). src/did holds the pure pieces; this composes them
// with src/chain reads. A ledger that cannot be read is an error (502), never a verified: false.
import { clip } from '../openapi/error-bounds.ts';
import { canonicalize, didIdToBytes, parseDid, resolveFromRegistry, verifyDataIntegrity } from '../did/index.ts';
import type { DidResolutionResult, VerifyDataIntegrityResult } from '../did/index.ts';
import type { components } from '../generated/vault-api.ts';
import { ApiError, type VaultAppDeps } from './context.ts';
import type { Where } from './routes/issue-rules.ts';

type Schemas = components['schemas'];
export type VerifyCredentialResponse = Schemas['VerifyCredentialResponse'];
export type CheckName = Schemas['VerificationCheckName'];
type Problem = Schemas['VerificationProblem'];
type CheckStatus = VerifyCredentialResponse['checks'][number]['status'];

/**
 * DID resolution for one request: this network's registry through the chain's read cache, each DID read
 * once. A registry read that fails is kept and rethrown by `rethrow()` once the verification is done.
 */
export function requestResolver(deps: VaultAppDeps) {
  const seen = new Map<string, Promise<DidResolutionResult>>();
  let failure: unknown;
  const resolve = (did: string): Promise<DidResolutionResult> => {
    let r = seen.get(did);
    if (!r) {
      r = resolveFromRegistry({
        did,
        networks: [deps.profile.network],
        readRecord: async (parsed) => {
          try {
            return (await deps.chain.registry.get(didIdToBytes(parsed.didId)))?.record;
          } catch (e) {
            failure ??= e;
            throw e;
          }
        },
      });
      seen.set(did, r);
    }
    return r;
  };
  return {
    resolve,
    rethrow(): void {
      if (failure !== undefined) throw failure;
    },
  };
}

/**
 * Issuance: a vcData that carries a proof must verify, every proof by an assertionMethod key of issuerDid,
 * and name issuerDid as its issuer when it names one. Without a proof it is accepted as before.
 */
export async function checkVcProof(deps: VaultAppDeps, where: Where, vcData: string, issuerDid: string): Promise<void> {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(vcData) as Record<string, unknown>;
  } catch {
    return; // checkVcData answers vcData_invalid
  }
  if (doc['proof'] === undefined) return;
  const refuse = (why: string) => new ApiError(400, 'vc_proof_invalid', `${where}vcData proof ${why}`);
  const resolver = requestResolver(deps);
  const result = await verifyDataIntegrity({ document: doc, resolve: resolver.resolve, now: new Date(deps.now()) });
  resolver.rethrow();
  if (!result.verified) {
    const e = result.errors[0];
    throw refuse(`does not verify: ${e ? `${e.message} (${e.reason})` : 'no proof'}`);
  }
  const other = result.results.find((r) => r.controller !== issuerDid);
  if (other) throw refuse(`was made by ${other.verificationMethod}, not by an assertion key of issuerDid ${issuerDid}`);
  const issuer = issuerOf(doc);
  if (issuer !== undefined && issuer !== issuerDid) throw refuse(`is for issuer ${issuer}, but issuerDid is ${issuerDid}`);
}

/** The credential's `issuer`: a URL, or an object with `id` (VC Data Model 2.0 §4.7). */
export function issuerOf(credential: Record<string, unknown>): string | undefined {
  const issuer = credential['issuer'];
  if (typeof issuer === 'string') return issuer;
  if (typeof issuer === 'object' && issuer !== null && typeof (issuer as { id?: unknown }).id === 'string') return (issuer as { id: string }).id;
  return undefined;
}

/** Where the credential sits on the chain, when the caller named it. */
export interface VaultEntry {
  vault: string;
  vcId: string;
  /** The issuer DID the vault stored at issuance. */
  storedIssuerDid: string;
}

export interface VerifyCredentialInput {
  credential: Record<string, unknown>;
  entry?: VaultEntry;
  /** A presented credential that differs from the one the vault holds under `entry`. */
  notTheStoredCredential?: boolean;
  options?: { domain?: string; challenge?: string };
}

/** The five checks, each passed, failed or skipped; verified when none failed. */
export async function verifyCredential(deps: VaultAppDeps, input: VerifyCredentialInput): Promise<VerifyCredentialResponse> {
  const now = new Date(deps.now());
  const resolver = requestResolver(deps);
  const outcome = new Map<CheckName, CheckStatus>();
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const fail = (check: CheckName, reason: string, message: string) => {
    outcome.set(check, 'failed');
    // The answer stays small (VerifyCredentialResponse: at most 20 of each, messages at most 1,000 characters).
    if (errors.length < 20) errors.push({ check, reason, message: clip(message, 1000) });
  };
  const skip = (check: CheckName, reason: string, message: string) => {
    if (!outcome.has(check)) outcome.set(check, 'skipped');
    if (warnings.length < 20) warnings.push({ check, reason, message: clip(message, 1000) });
  };

  // proof
  const proof = await verifyDataIntegrity({
    document: input.credential,
    resolve: resolver.resolve,
    now,
    ...(input.options?.domain !== undefined ? { domain: input.options.domain } : {}),
    ...(input.options?.challenge !== undefined ? { challenge: input.options.challenge } : {}),
  });
  resolver.rethrow();
  if (!proof.verified) for (const e of proof.errors) fail('proof', e.reason, e.message);

  // issuerDid
  const issuerWallet = await checkIssuer(deps, input, proof, resolver, fail);
  resolver.rethrow();

  // status and issuerAllowed: on the chain, when the caller named the vault entry.
  if (!input.entry) {
    skip('status', 'no_vault_reference', 'no owner and vcId were given: the on-chain status was not checked');
    skip('issuerAllowed', 'no_vault_reference', 'no owner and vcId were given: issuer access was not checked');
  } else {
    const { vault, vcId } = input.entry;
    if (input.notTheStoredCredential) {
      fail('status', 'not_the_stored_credential', `the vault holds a different credential under ${vcId}`);
    }
    const status = await deps.chain.vault.verifyVc({ vault, vcId });
    if (status.status === 'revoked') fail('status', 'revoked', `the credential was revoked on ${status.since}`);
    else if (status.status !== 'valid') fail('status', status.status, `the vault reports the credential as ${status.status}`);
    if (issuerWallet === undefined) {
      skip('issuerAllowed', 'issuer_unknown', "the issuer's wallet is unknown (its DID did not resolve): issuer access was not checked");
    } else if (await isDenied(deps, vault, issuerWallet)) {
      fail('issuerAllowed', 'issuer_denied', `the vault owner denies the issuer ${issuerWallet}`);
    }
  }

  // validityPeriod
  const period = validityProblem(input.credential, now);
  if (period) fail('validityPeriod', period.reason, period.message);

  const checks = (['proof', 'issuerDid', 'status', 'issuerAllowed', 'validityPeriod'] as const).map((check) => ({
    check,
    status: outcome.get(check) ?? ('passed' as const),
  }));
  return { verified: errors.length === 0, checks, warnings, errors };
}

/** The issuerDid check; answers the issuer's wallet (the DID's controller) when the DID resolved. */
async function checkIssuer(
  deps: VaultAppDeps,
  input: VerifyCredentialInput,
  proof: VerifyDataIntegrityResult,
  resolver: ReturnType<typeof requestResolver>,
  fail: (check: CheckName, reason: string, message: string) => void,
): Promise<string | undefined> {
  const issuer = issuerOf(input.credential);
  if (issuer === undefined) {
    fail('issuerDid', 'issuer_missing', 'the credential names no issuer');
    return undefined;
  }
  const parsed = parseDid(issuer);
  if (!parsed.ok) {
    fail('issuerDid', 'issuer_not_ledger_did', `the issuer ${issuer} is not a did:ledger DID`);
    return undefined;
  }
  if (parsed.value.network !== deps.profile.network) {
    fail('issuerDid', 'network_mismatch', `the issuer DID belongs to ${parsed.value.network}, this service to ${deps.profile.network}`);
    return undefined;
  }
  const resolved = await resolver.resolve(issuer);
  const error = resolved.didResolutionMetadata.error;
  if (error === 'notFound') {
    fail('issuerDid', 'did_not_found', `the issuer DID ${issuer} is not registered`);
    return undefined;
  }
  if (error !== undefined) return undefined; // a registry that cannot be read: rethrown by the caller
  if (resolved.didDocumentMetadata.deactivated) fail('issuerDid', 'did_deactivated', `the issuer DID ${issuer} is deactivated`);
  const signers = proof.results.map((r) => r.controller).filter((c): c is string => c !== undefined);
  const other = signers.find((c) => c !== issuer);
  if (other) fail('issuerDid', 'not_proof_signer', `a proof was made by ${other}, not by the issuer ${issuer}`);
  if (input.entry && input.entry.storedIssuerDid !== issuer) {
    fail('issuerDid', 'stored_issuer_mismatch', `the vault stored the issuer DID ${input.entry.storedIssuerDid}, the credential names ${issuer}`);
  }
  return resolved.didDocumentMetadata.method?.stellarAccount;
}

/** Denied issuers are few (the contract allows 1,000): the count first, then pages of 200. */
async function isDenied(deps: VaultAppDeps, vault: string, issuer: string): Promise<boolean> {
  const count = await deps.chain.vault.deniedIssuerCount({ vault });
  for (let offset = 0; offset < count; offset += 200) {
    const page = await deps.chain.vault.listDeniedIssuers({ vault, offset, limit: 200 });
    if (page.includes(issuer)) return true;
    if (page.length < 200) break;
  }
  return false;
}

/** VC 2.0 validFrom/validUntil, or VC 1.1 issuanceDate/expirationDate, against now. */
export function validityProblem(credential: Record<string, unknown>, now: Date): { reason: string; message: string } | undefined {
  const from = credential['validFrom'] ?? credential['issuanceDate'];
  const until = credential['validUntil'] ?? credential['expirationDate'];
  for (const [name, value] of [['validFrom', from], ['validUntil', until]] as const) {
    if (value !== undefined && (typeof value !== 'string' || Number.isNaN(Date.parse(value)))) {
      return { reason: 'invalid_date', message: `${name} is not a date-time` };
    }
  }
  if (typeof from === 'string' && Date.parse(from) > now.getTime()) return { reason: 'not_yet_valid', message: `the credential is valid from ${from}` };
  if (typeof until === 'string' && Date.parse(until) < now.getTime()) return { reason: 'expired', message: `the credential expired at ${until}` };
  return undefined;
}

/** Whether two credentials are the same JSON (canonical forms). */
export function sameCredential(a: unknown, b: unknown): boolean {
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}
