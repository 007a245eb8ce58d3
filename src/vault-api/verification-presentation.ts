// Presentations (vault-api.yaml verifyPresentation, createChallenge): the presentation's Data Integrity proof
// (eddsa-jcs-2022, purpose `authentication`) over the verifier's challenge and domain, made with a key of the
// presentation's `holder` DID when it names one — the holder binding; `holder` is optional (VC Data Model 2.0
// §4.13) and a warning says when nothing was bound — then every credential inside as verifyCredential verifies
// a presented one. Challenges this service issued are kept in the challenge store (Redis when configured, so
// every instance shares them) for the client that asked (src/stores/types.ts ChallengeStore), and accepted once,
// from that client, within 5 minutes.
import { randomBytes } from 'node:crypto';
import { verifyDataIntegrity, type Ed25519KeyCache } from '../did/index.ts';
import type { CanonicalizationLimits } from '../did/library-suites.ts';
import type { components } from '../generated/vault-api.ts';
import type { ChallengeStore } from '../stores/index.ts';
import type { VaultAppDeps } from './context.ts';
import { verifyCredential } from './verification.ts';
import { requestResolver } from './verification-resolver.ts';
import { proofResults } from './verification-results.ts';
import { isError, problem, proofProblem, type CheckName, type ProblemDetails } from './verification-problems.ts';
import { credentialsOf, holderOf, presentationStructureProblems, subjectIdsOf } from './verification-structure.ts';
import { contextSource } from './json-ld-contexts.ts';

type Schemas = components['schemas'];
export type VerifyPresentationResult = Schemas['VerifyPresentationResult'];
type PresentationResults = NonNullable<NonNullable<VerifyPresentationResult['results']>['presentation']>;

/** How long an issued challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** The form of this service's challenges (vault-api.yaml CreateChallengeResult). */
export const CHALLENGE_PATTERN = /^cvc1_[A-Za-z0-9_-]{22}$/;

/** Live challenges one client may hold by default (vault-api.yaml createChallenge; CV_CHALLENGES_PER_CLIENT). */
export const CHALLENGES_PER_CLIENT = 100;

/**
 * Who asked for a challenge, as the store keys it: one network's presentations, then the API key or, for a
 * keyless caller, its address as the per-IP rate limit sees it.
 */
export type ChallengeClient = { keyId: string } | { ip: string };
const clientKey = (deps: VaultAppDeps, client: ChallengeClient) =>
  `${deps.profile.network}:${'keyId' in client ? `key:${client.keyId}` : `ip:${client.ip}`}`;

/** A fresh challenge kept for `client`, or why the store refused one (nothing is evicted for it). */
export async function issueChallenge(
  deps: VaultAppDeps,
  store: ChallengeStore,
  client: ChallengeClient,
): Promise<{ challenge: string } | { refused: string }> {
  const challenge = `cvc1_${randomBytes(16).toString('base64url')}`;
  const quota = deps.limits.challengesPerClient ?? CHALLENGES_PER_CLIENT;
  const issued = await store.issue(clientKey(deps, client), challenge, new Date(deps.now() + CHALLENGE_TTL_MS), quota);
  if (issued === 'issued') return { challenge };
  return {
    refused:
      issued === 'client_quota'
        ? `this client already holds ${quota} live challenges: answer or let some expire (5 minutes) before asking for more`
        : 'the challenge store is full: retry when some challenges have expired',
  };
}

export interface VerifyPresentationInput {
  presentation: Record<string, unknown>;
  options: {
    challenge: string;
    domain?: string;
    returnPresentation?: boolean;
    returnResults?: boolean;
    returnProblemDetails?: boolean;
  };
  /** The presentation's JSON text is not I-JSON. */
  parsingProblems?: ProblemDetails[];
  /** Node's public keys, kept by the app across requests. */
  keyCache?: Ed25519KeyCache;
  /** The RDF canonicalization's work bound: a keyless request's is smaller (library-suites.ts). */
  canonicalization?: CanonicalizationLimits;
  /** The request came without an API key (a status list it makes the service fetch gets the keyless bounds). */
  keyless?: boolean;
  /** The bytes its keyless body spent of the keyless RDF limit: a status list it makes the service read has the rest. */
  rdfBytes?: number;
  /** Who sends the presentation: only the client a challenge was issued to can spend it. */
  client: ChallengeClient;
}

/** Where a Data Integrity problem of the holder's proof belongs among the presentation's checks. */
const CHECK_OF: Partial<Record<ProblemDetails['reason'], CheckName>> = {
  challenge_mismatch: 'challenge',
  domain_mismatch: 'domain',
  not_proof_signer: 'holder',
};

export async function verifyPresentation(
  deps: VaultAppDeps,
  store: ChallengeStore,
  input: VerifyPresentationInput,
): Promise<VerifyPresentationResult> {
  const { presentation: vp, options } = input;
  const early = input.parsingProblems?.length ? input.parsingProblems : presentationStructureProblems(vp);
  if (early.length > 0) return answer(vp, options, early, {}, []);

  const holder = holderOf(vp);
  const resolver = requestResolver(deps, { keyless: input.keyless === true, rdfBytes: input.rdfBytes ?? 0 });
  // The credentials first: each is canonicalized once, for its proofs and then inside the presentation's.
  const canonicalCache = new WeakMap<object, string>();
  // The caches and bounds of this request, for the credentials' proofs and the presentation's alike.
  const bounds = {
    ...(input.keyCache ? { keyCache: input.keyCache } : {}),
    ...(input.canonicalization ? { canonicalization: input.canonicalization } : {}),
  };
  const shape = {
    returnResults: options.returnResults !== false,
    returnProblemDetails: options.returnProblemDetails !== false,
  };
  const credentials = [];
  for (const credential of credentialsOf(vp)) {
    credentials.push(await verifyCredential(deps, { credential, resolver, canonicalCache, options: shape, ...bounds }));
  }
  const problems: ProblemDetails[] = [];
  const proof = await verifyDataIntegrity({
    document: vp,
    resolve: resolver.resolve,
    now: new Date(deps.now()),
    expectedProofPurpose: 'authentication',
    ...(holder !== undefined ? { expectedController: holder } : {}),
    challenge: options.challenge,
    canonicalCache,
    contexts: contextSource(deps),
    ...bounds,
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
  });
  resolver.rethrow();
  for (const e of proof.errors) {
    const check = CHECK_OF[e.reason] ?? 'proof';
    problems.push(
      e.reason === 'not_proof_signer'
        ? problem('HOLDER_BINDING_ERROR', 'holder', e.reason, e.message)
        : proofProblem(e, check),
    );
  }
  // A challenge of this service's form must be one it issued to this client and nobody answered yet: spent by
  // the first presentation whose proof verifies (a failed attempt, or another client's, does not burn it).
  if (
    proof.verified &&
    CHALLENGE_PATTERN.test(options.challenge) &&
    !(await store.consume(clientKey(deps, input.client), options.challenge))
  ) {
    problems.push(
      problem(
        'INVALID_CHALLENGE_ERROR',
        'challenge',
        'challenge_unknown',
        `the challenge ${options.challenge} has the form of this service's challenges but is used, expired, or unknown to this client (its API key or address): ask POST /challenges for a fresh one`,
      ),
    );
  }
  problems.push(...holderWarnings(holder, credentialsOf(vp)));
  const failed = (check: CheckName) => problems.some((p) => isError(p) && p.check === check);
  const presentationResults: PresentationResults = {
    challenge: { verified: proof.verified && !failed('challenge'), input: options.challenge },
    ...(options.domain !== undefined
      ? { domain: { verified: proof.verified && !failed('domain'), input: options.domain } }
      : {}),
    ...(holder !== undefined ? { holder: { verified: proof.verified && !failed('holder'), input: clip(holder) } } : {}),
    proof: proofResults(proof.results),
  };
  return answer(vp, options, problems, presentationResults, credentials);
}

/** No holder: nothing was bound. A holder: each credential none of whose subjects it is (adversarial finding). */
function holderWarnings(holder: string | undefined, credentials: Record<string, unknown>[]): ProblemDetails[] {
  if (holder === undefined) {
    return [
      problem(
        'HOLDER_BINDING_NOT_CHECKED',
        'holder',
        'no_holder',
        'the presentation names no holder: its proof was verified, but whose credentials these are was not checked',
      ),
    ];
  }
  return credentials.flatMap((vc, i) =>
    subjectIdsOf(vc).includes(holder)
      ? []
      : [
          problem(
            'HOLDER_NOT_SUBJECT',
            'holder',
            'holder_not_subject',
            `no credentialSubject.id of verifiableCredential[${i}] is the holder ${clip(holder, 128)}: the holder presents a credential about someone else`,
          ),
        ],
  );
}

function answer(
  vp: Record<string, unknown>,
  options: VerifyPresentationInput['options'],
  problems: ProblemDetails[],
  presentation: PresentationResults,
  credentials: Schemas['VerifyCredentialResult'][],
): VerifyPresentationResult {
  return {
    verified: !problems.some(isError) && credentials.every((c) => c.verified),
    ...(options.returnPresentation === true ? { verifiablePresentation: vp } : {}),
    ...(options.returnProblemDetails === false ? {} : { problemDetails: problems }),
    ...(options.returnResults === false ? {} : { results: { presentation, credentials } }),
  };
}

function clip(text: string, max = 256): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
