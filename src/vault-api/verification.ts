// Credential verification (docs/vault-api.md "Verify a credential"; vault-api.yaml verifyCredential): the
// credential's shape, its proof (Data Integrity eddsa-jcs-2022, the key found by resolving the issuer DID: this
// network's registry for did:ledger, offline for did:key), its validity period, its on-chain status and its issuer's
// access in the vault that holds it, and the issuer DID's ledger state, in one VC API (VCALM) answer.
// `verifyCredential` is the one place where a verification's final result and reasons are known. A ledger that cannot
// be read is an error (502), never a `verified: false`.
import {
  DID_KEY_PREFIX,
  DID_WEB_PREFIX,
  resolveDidWeb,
  canonicalize,
  didIdToBytes,
  isDateTimeStamp,
  parseDid,
  resolutionError,
  resolveDidKey,
  resolveFromRegistry,
  verifyDataIntegrity,
} from '../did/index.ts';
import type { DidResolutionResult, Ed25519KeyCache, ProofVerification } from '../did/index.ts';
import type { CanonicalizationLimits } from '../did/library-suites.ts';
import { ChainError } from '../chain/index.ts';
import type { components } from '../generated/vault-api.ts';
import { VaultErrors, type VaultAppDeps } from './context.ts';
import {
  isError,
  problem,
  proofProblem,
  type CredentialCheckName,
  type ProblemDetails,
} from './verification-problems.ts';
import {
  deniedWallet,
  readSlot,
  statusEntries,
  statusInput,
  type StatusInput,
  type VaultSlot,
} from './verification-status.ts';
import { credentialStructureProblems } from './verification-structure.ts';
import { contextSource } from './json-ld-contexts.ts';
import { otherStatusEntry } from './verification-bitstring.ts';
import { issuerBinding, issuerMethod } from './verification-issuer.ts';
import type { Where } from './routes/issue-rules.ts';

type Schemas = components['schemas'];
export type VerifyCredentialResult = Schemas['VerifyCredentialResult'];
type Results = NonNullable<VerifyCredentialResult['results']>;
type ProofResult = Schemas['ProofResult'];
type StatusResult = Schemas['StatusResult'];

export const CREDENTIAL_CHECKS: readonly CredentialCheckName[] = [
  'proof',
  'validFrom',
  'validUntil',
  'credentialStatus',
  'issuerDid',
  'issuerAllowed',
];

/**
 * DID resolution for one request, each DID once: `did:ledger` of this network through its registry (the chain
 * client's read cache), `did:key` offline, any other method `methodNotSupported`. A registry read that fails
 * is kept and rethrown by `rethrow()` once the verification is done (502).
 */
export function requestResolver(deps: VaultAppDeps) {
  const seen = new Map<string, Promise<DidResolutionResult>>();
  let failure: unknown;
  const resolveOnce = (did: string): Promise<DidResolutionResult> => {
    if (did.startsWith(DID_KEY_PREFIX)) return Promise.resolve(resolveDidKey(did));
    if (did.startsWith(DID_WEB_PREFIX) && deps.fetchJson) return resolveDidWeb(did, deps.fetchJson);
    if (!did.startsWith('did:ledger:')) {
      const method = /^did:([a-z0-9]+):/.exec(did)?.[1];
      const methods = deps.fetchJson ? 'did:ledger, did:key and did:web' : 'did:ledger and did:key';
      return Promise.resolve(
        resolutionError(
          'methodNotSupported',
          `this verifier resolves ${methods}, not ${method ? `did:${method}` : 'this identifier'}`,
        ),
      );
    }
    return resolveFromRegistry({
      did,
      networks: [deps.profile.network],
      readRecord: async (parsed) => {
        try {
          return (await deps.chain.registry.get(didIdToBytes(parsed.didId)))?.record;
        } catch (e) {
          if (e instanceof ChainError) failure ??= e;
          throw e;
        }
      },
      // The chain client says every failure to read the ledger as a ChainError; anything else is a defect.
      isReadFailure: (e) => e instanceof ChainError,
    });
  };
  const resolve = (did: string): Promise<DidResolutionResult> => {
    let r = seen.get(did);
    if (!r) {
      r = resolveOnce(did);
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

export type RequestResolver = ReturnType<typeof requestResolver>;

/** The credential's `issuer`: a URL, or an object with `id` (VC Data Model 2.0 §4.7). */
export function issuerOf(credential: Record<string, unknown>): string | undefined {
  const issuer = credential['issuer'];
  if (typeof issuer === 'string') return issuer;
  if (typeof issuer === 'object' && issuer !== null && typeof (issuer as { id?: unknown }).id === 'string')
    return (issuer as { id: string }).id;
  return undefined;
}

/**
 * Issuance: a vcData that carries a proof must verify, every proof by an assertionMethod key of issuerDid, or
 * of the credential's issuer when that is a did:key (the vault still records issuerDid). A credential that
 * names an issuer names one of those two. Without a proof it is accepted as before.
 */
export async function checkVcProof(deps: VaultAppDeps, where: Where, vcData: string, issuerDid: string): Promise<void> {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(vcData) as Record<string, unknown>;
  } catch {
    return; // checkVcData answers vcData_invalid
  }
  if (doc['proof'] === undefined) return;
  const refuse = (why: string) => VaultErrors.vcProofInvalid(`${where}vcData proof ${why}`);
  const issuer = issuerOf(doc);
  if (issuer !== undefined && issuer !== issuerDid && !issuer.startsWith(DID_KEY_PREFIX)) {
    throw refuse(`is for issuer ${issuer}, but issuerDid is ${issuerDid}`);
  }
  const signer = issuer?.startsWith(DID_KEY_PREFIX) ? issuer : issuerDid;
  const resolver = requestResolver(deps);
  const result = await verifyDataIntegrity({
    document: doc,
    resolve: resolver.resolve,
    now: new Date(deps.now()),
    expectedController: signer,
    contexts: contextSource(deps),
  });
  resolver.rethrow();
  if (!result.verified) {
    const e = result.errors[0];
    if (e?.reason === 'not_proof_signer')
      throw refuse(`was made by another key than an assertion key of ${signer}: ${e.message}`);
    throw refuse(`does not verify: ${e ? `${e.message} (${e.reason})` : 'no proof'}`);
  }
}

/** Where the caller says the credential sits (`owner` + `vcId`), read with the owner's or an admin key. */
export interface VaultReference {
  owner: string;
  vault: string;
  vcId: string;
  /** The stored credential differs from the one presented with the reference. */
  notTheStoredCredential?: boolean;
  slot: VaultSlot;
}

export interface VerifyCredentialInput {
  credential: Record<string, unknown>;
  reference?: VaultReference;
  options?: {
    checks?: readonly CredentialCheckName[];
    domain?: string;
    challenge?: string;
    returnResults?: boolean;
    returnProblemDetails?: boolean;
    returnCredential?: boolean;
  };
  /** Problems found before (the credential's JSON text is not I-JSON): answered without verifying. */
  parsingProblems?: ProblemDetails[];
  /** Shared by the credentials of one presentation. */
  resolver?: RequestResolver;
  /** Canonical texts kept for the presentation's own proof (verifyDataIntegrity `canonicalCache`). */
  canonicalCache?: WeakMap<object, string>;
  /** Node's public keys, kept by the app across requests. */
  keyCache?: Ed25519KeyCache;
  /** The RDF canonicalization's work bound: a keyless request's is smaller (library-suites.ts). */
  canonicalization?: CanonicalizationLimits;
}

/** Verifies one credential; the answer's `verified` is true when no check failed. */
export async function verifyCredential(
  deps: VaultAppDeps,
  input: VerifyCredentialInput,
): Promise<VerifyCredentialResult> {
  const { credential, reference, options = {} } = input;
  const problems: ProblemDetails[] = [...(input.parsingProblems ?? [])];
  if (problems.length === 0) problems.push(...credentialStructureProblems(credential));
  if (problems.length > 0) return answer(credential, options, problems, {});

  const wanted = new Set<CredentialCheckName>(options.checks ?? CREDENTIAL_CHECKS);
  // A status entry is trusted only under a verified proof; issuer access reads the vault the entry names too.
  if (wanted.has('credentialStatus') || (wanted.has('issuerAllowed') && !reference)) wanted.add('proof');
  const now = new Date(deps.now());
  const resolver = input.resolver ?? requestResolver(deps);
  const issuer = issuerOf(credential)!;
  const results: Results = {};
  const add = (p: ProblemDetails) => problems.length < 48 && problems.push(p);

  // proof
  let proofVerified = false;
  if (wanted.has('proof')) {
    const proof = await verifyDataIntegrity({
      document: credential,
      resolve: resolver.resolve,
      now,
      ...issuerBinding(deps, issuer),
      ...(input.canonicalCache ? { canonicalCache: input.canonicalCache } : {}),
      ...(input.keyCache ? { keyCache: input.keyCache } : {}),
      ...(input.canonicalization ? { canonicalization: input.canonicalization } : {}),
      ...(options.domain !== undefined ? { domain: options.domain } : {}),
      ...(options.challenge !== undefined ? { challenge: options.challenge } : {}),
    });
    resolver.rethrow();
    proofVerified = proof.verified;
    for (const e of proof.errors) add(proofProblem(e));
    results.proof = proofResults(proof.results);
  }

  // validFrom, validUntil
  for (const check of ['validFrom', 'validUntil'] as const) {
    if (!wanted.has(check)) continue;
    const v = validityOf(credential, check, now);
    if (!v) continue;
    results[check] = { verified: v.problem === undefined, input: clipText(v.input) };
    if (v.problem) add(v.problem);
  }

  // issuerDid: the ledger state of a did:ledger issuer.
  const method = issuerMethod(deps, issuer);
  if (wanted.has('issuerDid')) {
    const outcome = await checkIssuerDid(deps, issuer, method, reference, resolver, add);
    results.issuerDid = { outcome, input: clipText(issuer) };
  }

  // credentialStatus: by reference, or by the credential's LedgerVaultStatusEntry.
  const slots: VaultSlot[] = reference ? [reference.slot] : [];
  if (!wanted.has('credentialStatus') && wanted.has('issuerAllowed') && !reference) {
    // Only issuer access asked: the vault the entry names is read for it, its status not reported.
    slots.push(...(await statusFromEntries(deps, credential, proofVerified, () => undefined)).slots);
  }
  if (wanted.has('credentialStatus')) {
    results.credentialStatus = [];
    if (reference) {
      const input = {
        type: 'VaultReference',
        network: deps.profile.network,
        vaultContract: reference.vault,
        vcId: clipText(reference.vcId),
      };
      if (reference.notTheStoredCredential) {
        add(
          problem(
            'STATUS_VERIFICATION_ERROR',
            'credentialStatus',
            'not_the_stored_credential',
            `the vault holds a different credential under ${clipText(reference.vcId, 64)}`,
          ),
        );
        results.credentialStatus.push({ verified: false, input });
      } else {
        results.credentialStatus.push(statusResult(reference.slot, input, add));
      }
    } else {
      const entries = await statusFromEntries(deps, credential, proofVerified, add, resolver);
      results.credentialStatus.push(...entries.results);
      slots.push(...entries.slots);
    }
  }

  // issuerAllowed: the recorded issuing wallet and the issuer DID's current controller, in the vault.
  if (wanted.has('issuerAllowed')) {
    const outcome = await checkIssuerAllowed(deps, slots, resolver, add);
    results.issuerAllowed = { outcome, input: clipText(issuer) };
  }
  return answer(credential, options, problems, results);
}

function answer(
  credential: Record<string, unknown>,
  options: VerifyCredentialInput['options'] = {},
  problems: ProblemDetails[],
  results: Results,
): VerifyCredentialResult {
  return {
    verified: !problems.some(isError),
    ...(options.returnCredential === true ? { credential } : {}),
    ...(options.returnProblemDetails === false ? {} : { problemDetails: problems }),
    ...(options.returnResults === false ? {} : { results }),
  };
}

async function checkIssuerDid(
  deps: VaultAppDeps,
  issuer: string,
  method: 'ledger' | 'key' | 'other',
  reference: VaultReference | undefined,
  resolver: RequestResolver,
  add: (p: ProblemDetails) => void,
): Promise<'passed' | 'failed' | 'not_applicable'> {
  const fail = (
    title: 'ISSUER_DID_INVALID' | 'UNSUPPORTED_DID_METHOD',
    reason: ProblemDetails['reason'],
    detail: string,
  ) => {
    add(problem(title, 'issuerDid', reason, detail));
    return 'failed' as const;
  };
  if (method === 'key') return 'not_applicable';
  if (method === 'other')
    return fail(
      'UNSUPPORTED_DID_METHOD',
      'did_method_not_supported',
      `the issuer ${clipText(issuer, 100)} is not a did:ledger or did:key DID`,
    );
  const parsed = parseDid(issuer);
  if (!parsed.ok)
    return fail(
      'ISSUER_DID_INVALID',
      'did_not_found',
      `the issuer ${clipText(issuer, 100)} is not a valid did:ledger DID: ${parsed.message}`,
    );
  if (parsed.value.network !== deps.profile.network) {
    return fail(
      'ISSUER_DID_INVALID',
      'network_mismatch',
      `the issuer DID belongs to ${parsed.value.network}, this service to ${deps.profile.network}`,
    );
  }
  const resolved = await resolver.resolve(issuer);
  resolver.rethrow();
  const error = resolved.didResolutionMetadata.error;
  if (error === 'notFound')
    return fail('ISSUER_DID_INVALID', 'did_not_found', `the issuer DID ${issuer} is not registered`);
  if (error !== undefined)
    return fail('ISSUER_DID_INVALID', 'did_unresolvable', `the issuer DID ${issuer} could not be resolved (${error})`);
  if (resolved.didDocumentMetadata.deactivated)
    return fail('ISSUER_DID_INVALID', 'did_deactivated', `the issuer DID ${issuer} is deactivated`);
  if (reference && reference.slot.issuerDid !== issuer) {
    return fail(
      'ISSUER_DID_INVALID',
      'stored_issuer_mismatch',
      `the vault stored the issuer DID ${reference.slot.issuerDid}, the credential names ${issuer}`,
    );
  }
  return 'passed';
}

function statusResult(slot: VaultSlot, input: StatusInput, add: (p: ProblemDetails) => void): StatusResult {
  const s = slot.status;
  if (s.status === 'revoked')
    add(problem('CREDENTIAL_REVOKED', 'credentialStatus', 'revoked', `the credential was revoked on ${s.since}`));
  else if (s.status !== 'valid')
    add(
      problem(
        'STATUS_VERIFICATION_ERROR',
        'credentialStatus',
        s.status,
        `the vault reports the credential as ${s.status}`,
      ),
    );
  return {
    verified: s.status === 'valid',
    status: s.status,
    ...(s.status === 'revoked' ? { since: s.since } : {}),
    input,
  };
}

/** The status of each LedgerVaultStatusEntry: read only under a verified proof, from this network's vault. */
async function statusFromEntries(
  deps: VaultAppDeps,
  credential: Record<string, unknown>,
  proofVerified: boolean,
  add: (p: ProblemDetails) => void,
  resolver?: RequestResolver,
): Promise<{ results: StatusResult[]; slots: VaultSlot[] }> {
  const results: StatusResult[] = [];
  const slots: VaultSlot[] = [];
  const entries = statusEntries(credential);
  if (entries.length === 0) {
    add(
      problem(
        'STATUS_NOT_CHECKED',
        'credentialStatus',
        'no_status_entry',
        'the credential carries no LedgerVaultStatusEntry and no owner and vcId were given: its status was not checked',
      ),
    );
  }
  for (const e of entries) {
    if (e.kind === 'other') {
      // Status is dispatched by type (as digitalbazaar/vc does): verification-bitstring.ts.
      const read = await otherStatusEntry(deps, e, issuerOf(credential)!, proofVerified, resolver);
      if (read.problem) add(read.problem);
      results.push(read.result);
      continue;
    }
    if (e.kind === 'invalid') {
      add(e.problem);
      results.push({ verified: false, input: e.input });
      continue;
    }
    const { entry } = e;
    const input = statusInput(entry as unknown as Record<string, unknown>);
    const fail = (reason: ProblemDetails['reason'], detail: string) => {
      add(problem('STATUS_VERIFICATION_ERROR', 'credentialStatus', reason, detail));
      results.push({ verified: false, input });
    };
    if (!proofVerified) {
      fail(
        'status_unconfirmed',
        'the LedgerVaultStatusEntry is trusted only under a verified proof, and the proof did not verify: the status was not read',
      );
      continue;
    }
    if (entry.network !== deps.profile.network) {
      fail(
        'network_mismatch',
        `the status lives on ${entry.network}; this service reads ${deps.profile.network}: verify at the ${entry.network} service`,
      );
      continue;
    }
    let read: Awaited<ReturnType<typeof readSlot>>;
    try {
      read = await readSlot(deps, entry.vaultContract, entry.vcId);
    } catch (e) {
      // a presented credential whose status entry is archived: its status is unknown until someone restores it
      if (!(e instanceof ChainError && e.code === 'state_archived')) throw e;
      fail(
        'status_unconfirmed',
        `the vault's ledger state for ${clipText(entry.vcId, 64)} is archived (its TTL ran out): the status cannot be read until it is restored`,
      );
      continue;
    }
    if (!read.ok) {
      fail('vc_not_found', read.detail);
      continue;
    }
    const slot = read.slot;
    if (!slot.document) {
      fail(
        'status_unconfirmed',
        `the vault's copy of ${clipText(entry.vcId, 64)} cannot be opened by this service, so it cannot be matched with the credential presented`,
      );
      continue;
    }
    if (!sameCredential(slot.document, credential)) {
      fail('not_the_stored_credential', `the vault holds a different credential under ${clipText(entry.vcId, 64)}`);
      continue;
    }
    slots.push(slot);
    results.push(statusResult(slot, input, add));
  }
  return { results, slots };
}

async function checkIssuerAllowed(
  deps: VaultAppDeps,
  slots: VaultSlot[],
  resolver: RequestResolver,
  add: (p: ProblemDetails) => void,
): Promise<'passed' | 'failed' | 'not_checked'> {
  if (slots.length === 0) {
    add(
      problem(
        'ISSUER_ACCESS_NOT_CHECKED',
        'issuerAllowed',
        'no_vault',
        'no vault holds the credential as far as this request says (no owner and vcId, no LedgerVaultStatusEntry read): issuer access was not checked',
      ),
    );
    return 'not_checked';
  }
  let checked = false;
  for (const slot of slots) {
    const wallets = await issuerWallets(slot, resolver);
    if (wallets.length === 0) continue;
    checked = true;
    const denied = await deniedWallet(deps, slot.vault, wallets);
    if (denied) {
      add(problem('ISSUER_DENIED', 'issuerAllowed', 'issuer_denied', `the vault owner denies the issuer ${denied}`));
      return 'failed';
    }
  }
  if (!checked) {
    add(
      problem(
        'ISSUER_ACCESS_NOT_CHECKED',
        'issuerAllowed',
        'issuer_unknown',
        "the issuer's wallet is unknown (not recorded at issuance, and its DID did not resolve): issuer access was not checked",
      ),
    );
    return 'not_checked';
  }
  return 'passed';
}

/**
 * The wallets whose denial fails issuerAllowed: the one this service recorded when it sealed the credential,
 * and the current controller of the issuer DID the vault stored (a DID moved to another wallet after it was
 * denied does not get its credentials allowed again).
 */
async function issuerWallets(slot: VaultSlot, resolver: RequestResolver): Promise<string[]> {
  const wallets = new Set<string>();
  if (slot.issuerWallet) wallets.add(slot.issuerWallet);
  const resolved = await resolver.resolve(slot.issuerDid);
  resolver.rethrow();
  const controller = resolved.didDocumentMetadata.method?.stellarAccount;
  if (controller) wallets.add(controller);
  return [...wallets];
}

type ProofSummary = Schemas['ProofSummary'];
const SUMMARY_STRINGS = [
  'id',
  'type',
  'cryptosuite',
  'created',
  'expires',
  'verificationMethod',
  'proofPurpose',
  'challenge',
  'nonce',
  'proofValue',
] as const;

/** A proof's Data Integrity members, bounded (vault-api.yaml ProofSummary); null for what is not an object. */
export function proofSummary(proof: unknown): ProofSummary | null {
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) return null;
  const p = proof as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of SUMMARY_STRINGS) if (typeof p[k] === 'string') out[k] = clipText(p[k]);
  for (const k of ['domain', 'previousProof'] as const) {
    const v = p[k];
    if (typeof v === 'string') out[k] = clipText(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v.slice(0, 8).map((x) => clipText(x));
  }
  return out as ProofSummary;
}

/** One result per proof (none for a document that carries none, or more than may be verified). */
export function proofResults(verified: ProofVerification[]): ProofResult[] {
  return verified.map((r) => ({ verified: r.verified, input: proofSummary(r.proof) }));
}

export function validityOf(
  credential: Record<string, unknown>,
  check: 'validFrom' | 'validUntil',
  now: Date,
): { input: string; problem?: ProblemDetails } | undefined {
  const value =
    check === 'validFrom'
      ? (credential['validFrom'] ?? credential['issuanceDate'])
      : (credential['validUntil'] ?? credential['expirationDate']);
  if (value === undefined) return undefined;
  // VC Data Model 2.0 §4.9: an XML Schema dateTimeStamp (time zone included). Date.parse alone takes "1",
  // "2099" or "March 7" for dates, and a time without zone in the server's local time.
  if (!isDateTimeStamp(value)) {
    const input = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
    return {
      input,
      problem: problem(
        'MALFORMED_VALUE_ERROR',
        check,
        'invalid_date',
        `${check} is not a date-time with a time zone (XML Schema dateTimeStamp)`,
      ),
    };
  }
  const t = Date.parse(value);
  if (check === 'validFrom' && t > now.getTime())
    return {
      input: value,
      problem: problem('CREDENTIAL_NOT_YET_VALID', check, 'not_yet_valid', `the credential is valid from ${value}`),
    };
  if (check === 'validUntil' && t < now.getTime())
    return {
      input: value,
      problem: problem('CREDENTIAL_EXPIRED', check, 'expired', `the credential expired at ${value}`),
    };
  return { input: value };
}

/** Whether two credentials are the same JSON (canonical forms). */
export function sameCredential(a: unknown, b: unknown): boolean {
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}

function clipText(text: string, max = 256): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
