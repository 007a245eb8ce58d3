// Credential verification (docs/vault-api.md "Verify a credential"; vault-api.yaml verifyCredential): the
// credential's shape, its proof (Data Integrity eddsa-jcs-2022, the key found by resolving the issuer DID: this
// network's registry for did:ledger, offline for did:key), its validity period, its on-chain status and its issuer's
// access in the vault that holds it, and the issuer DID's ledger state, in one VC API (VCALM) answer.
// `verifyCredential` is the one place where a verification's final result and reasons are known. A ledger that cannot
// be read is an error (502), never a `verified: false`.
import { verifyDataIntegrity } from '../did/index.ts';
import type { Ed25519KeyCache } from '../did/index.ts';
import type { CanonicalizationLimits } from '../did/library-suites.ts';
import type { components } from '../generated/vault-api.ts';
import type { VaultAppDeps } from './context.ts';
import {
  clipText,
  isError,
  proofProblem,
  type CredentialCheckName,
  type ProblemDetails,
} from './verification-problems.ts';
import type { VaultSlot } from './verification-status.ts';
import { credentialStructureProblems } from './verification-structure.ts';
import { referenceStatus, statusFromEntries, type VaultReference } from './verification-credential-status.ts';
import {
  checkIssuerAllowed,
  checkIssuerDid,
  issuerBinding,
  issuerMethod,
  unboundIssuerWarning,
} from './verification-issuer.ts';
import { issuerOf, requestResolver, type RequestResolver } from './verification-resolver.ts';
import { proofResults, validityOf } from './verification-results.ts';

type Schemas = components['schemas'];
export type VerifyCredentialResult = Schemas['VerifyCredentialResult'];
type Results = NonNullable<VerifyCredentialResult['results']>;
type ProofResult = Schemas['ProofResult'];
type StatusResult = Schemas['StatusResult'];
type AddProblem = (p: ProblemDetails) => void;

export const CREDENTIAL_CHECKS: readonly CredentialCheckName[] = [
  'proof',
  'validFrom',
  'validUntil',
  'credentialStatus',
  'issuerDid',
  'issuerAllowed',
];

/** Problems kept in one answer: the rest are dropped (bounded answers). */
const MAX_PROBLEMS = 48;

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
  /** The request came without an API key (a status list it makes the service fetch gets the keyless bounds). */
  keyless?: boolean;
  /** The bytes its keyless body spent of the keyless RDF limit: a status list it makes the service read has the rest. */
  rdfBytes?: number;
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

  const wanted = wantedChecks(options.checks, reference !== undefined);
  const now = new Date(deps.now());
  const resolver =
    input.resolver ?? requestResolver(deps, { keyless: input.keyless === true, rdfBytes: input.rdfBytes ?? 0 });
  const issuer = issuerOf(credential)!;
  const results: Results = {};
  const add: AddProblem = (p) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };

  let proofVerified = false;
  if (wanted.has('proof')) {
    const proof = await checkProof(deps, input, issuer, resolver, now, add);
    proofVerified = proof.verified;
    results.proof = proof.results;
  }
  for (const check of ['validFrom', 'validUntil'] as const) {
    if (!wanted.has(check)) continue;
    const v = validityOf(credential, check, now);
    if (!v) continue;
    results[check] = { verified: v.problem === undefined, input: clipText(v.input) };
    if (v.problem) add(v.problem);
  }
  // issuerDid: the ledger state of a did:ledger issuer (not applicable to did:key, did:web, or a URL).
  if (wanted.has('issuerDid')) {
    const method = issuerMethod(deps, issuer);
    const outcome = await checkIssuerDid(deps, issuer, method, reference?.slot.issuerDid, resolver, add);
    results.issuerDid = { outcome, input: clipText(issuer) };
  }
  const status = await checkStatus(deps, input, wanted, proofVerified, resolver, add);
  if (status.results) results.credentialStatus = status.results;
  // issuerAllowed: the recorded issuing wallet and the issuer DID's current controller, in the vault.
  if (wanted.has('issuerAllowed')) {
    const outcome = await checkIssuerAllowed(deps, status.slots, resolver, add);
    results.issuerAllowed = { outcome, input: clipText(issuer) };
  }
  return answer(credential, options, problems, results);
}

/**
 * The checks to run: those asked (all by default), and the proof under a status entry, which is trusted only under
 * a verified proof, or under issuer access without a reference, which reads the vault the entry names.
 */
export function wantedChecks(
  checks: readonly CredentialCheckName[] | undefined,
  byReference: boolean,
): Set<CredentialCheckName> {
  const wanted = new Set<CredentialCheckName>(checks ?? CREDENTIAL_CHECKS);
  if (wanted.has('credentialStatus') || (wanted.has('issuerAllowed') && !byReference)) wanted.add('proof');
  return wanted;
}

/**
 * proof: every Data Integrity proof of the credential, one at least made by a key of its issuer DID; an issuer that
 * is not a DID binds no key, and a warning says so.
 */
async function checkProof(
  deps: VaultAppDeps,
  input: VerifyCredentialInput,
  issuer: string,
  resolver: RequestResolver,
  now: Date,
  add: AddProblem,
): Promise<{ verified: boolean; results: ProofResult[] }> {
  const { options = {} } = input;
  const proof = await verifyDataIntegrity({
    document: input.credential,
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
  for (const e of proof.errors) add(proofProblem(e));
  const unbound = unboundIssuerWarning(issuer);
  if (unbound) add(unbound);
  return { verified: proof.verified, results: proofResults(proof.results) };
}

/**
 * credentialStatus, by reference or by the credential's status entries (`results` when asked), and the vault slots
 * that hold the credential as far as the request says, for issuerAllowed.
 */
async function checkStatus(
  deps: VaultAppDeps,
  { credential, reference }: VerifyCredentialInput,
  wanted: ReadonlySet<CredentialCheckName>,
  proofVerified: boolean,
  resolver: RequestResolver,
  add: AddProblem,
): Promise<{ results?: StatusResult[]; slots: VaultSlot[] }> {
  const slots: VaultSlot[] = reference ? [reference.slot] : [];
  if (!wanted.has('credentialStatus')) {
    // Only issuer access asked: the vault the entry names is read for it, its status not reported.
    if (wanted.has('issuerAllowed') && !reference)
      slots.push(...(await statusFromEntries(deps, credential, proofVerified, () => undefined)).slots);
    return { slots };
  }
  if (reference) return { results: [referenceStatus(deps, reference, add)], slots };
  const entries = await statusFromEntries(deps, credential, proofVerified, add, resolver);
  return { results: entries.results, slots: [...slots, ...entries.slots] };
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
