// Presentations (vault-api.yaml verifyPresentation, createChallenge): the holder's Data Integrity proof
// (eddsa-jcs-2022, purpose `authentication`) made with a key of the presentation's `holder` DID — the holder
// binding — over the verifier's challenge and domain, then every credential inside as verifyCredential
// verifies a presented one. Challenges this service issued are remembered in the nonce store (Redis when
// configured, so every instance shares them) and accepted once, within 5 minutes.
import { randomBytes } from 'node:crypto';
import { verifyDataIntegrity, type Ed25519KeyCache } from '../did/index.ts';
import type { components } from '../generated/vault-api.ts';
import type { NonceStore } from '../stores/index.ts';
import type { VaultAppDeps } from './context.ts';
import { proofResults, requestResolver, verifyCredential } from './verification.ts';
import { isError, problem, proofProblem, type CheckName, type ProblemDetails } from './verification-problems.ts';
import { credentialsOf, holderOf, presentationStructureProblems } from './verification-structure.ts';
import { contextSource } from './json-ld-contexts.ts';

type Schemas = components['schemas'];
export type VerifyPresentationResult = Schemas['VerifyPresentationResult'];
type PresentationResults = NonNullable<NonNullable<VerifyPresentationResult['results']>['presentation']>;

/** How long an issued challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** The form of this service's challenges (vault-api.yaml CreateChallengeResult). */
export const CHALLENGE_PATTERN = /^cvc1_[A-Za-z0-9_-]{22}$/;

/** Where issued challenges are kept: the deployment's shared nonce store, or one in this process. */
export type ChallengeStore = Pick<NonceStore, 'issue' | 'consume'>;

/** The store's binding of a challenge: one network's presentations, nothing else that uses the store. */
const bindingOf = (deps: VaultAppDeps) => `vault-presentation-challenge:${deps.profile.network}`;

export async function issueChallenge(deps: VaultAppDeps, store: ChallengeStore): Promise<string> {
  const challenge = `cvc1_${randomBytes(16).toString('base64url')}`;
  await store.issue(challenge, new Date(deps.now() + CHALLENGE_TTL_MS), bindingOf(deps));
  return challenge;
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
  const resolver = requestResolver(deps);
  // The credentials first: each is canonicalized once, for its proofs and then inside the presentation's.
  const canonicalCache = new WeakMap<object, string>();
  const credentials = [];
  for (const credential of credentialsOf(vp)) {
    const shape = {
      returnResults: options.returnResults !== false,
      returnProblemDetails: options.returnProblemDetails !== false,
    };
    credentials.push(
      await verifyCredential(deps, {
        credential,
        resolver,
        canonicalCache,
        options: shape,
        ...(input.keyCache ? { keyCache: input.keyCache } : {}),
      }),
    );
  }
  const problems: ProblemDetails[] = [];
  const proof = await verifyDataIntegrity({
    document: vp,
    resolve: resolver.resolve,
    now: new Date(deps.now()),
    expectedProofPurpose: 'authentication',
    expectedController: holder,
    challenge: options.challenge,
    canonicalCache,
    contexts: contextSource(deps),
    ...(input.keyCache ? { keyCache: input.keyCache } : {}),
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
  // A challenge of this service's form must be one it issued and nobody answered yet: spent by the first
  // presentation whose holder proof verifies (a failed attempt does not burn it for the holder).
  if (
    proof.verified &&
    CHALLENGE_PATTERN.test(options.challenge) &&
    !(await store.consume(options.challenge, bindingOf(deps)))
  ) {
    problems.push(
      problem(
        'INVALID_CHALLENGE_ERROR',
        'challenge',
        'challenge_unknown',
        `the challenge ${options.challenge} has the form of this service's challenges but is used, expired or unknown: ask POST /challenges for a fresh one`,
      ),
    );
  }
  const failed = (check: CheckName) => problems.some((p) => isError(p) && p.check === check);
  const presentationResults: PresentationResults = {
    challenge: { verified: proof.verified && !failed('challenge'), input: options.challenge },
    ...(options.domain !== undefined
      ? { domain: { verified: proof.verified && !failed('domain'), input: options.domain } }
      : {}),
    holder: { verified: proof.verified && !failed('holder'), input: clip(holder) },
    proof: proofResults(proof.results),
  };
  return answer(vp, options, problems, presentationResults, credentials);
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
