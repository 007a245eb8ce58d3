// The verifier's side of the vault API (vault-api.yaml verifyCredential, verifyPresentation, createChallenge):
// one call each, answering the VC API result whatever `verified` says. `/credentials/verify` answers 400 with
// the result when a credential does not verify (the W3C suites require a 4xx), so `unwrap` would throw there;
// these return the result and throw ApiError only for a request that could not be verified at all.
import { apiErrorFrom, unwrap, type FetchResult } from './errors.ts';
import type { VaultClient, VaultSchemas } from './vault.ts';

export type VerifyCredentialRequest = VaultSchemas['VerifyCredentialRequest'];
export type VerifyCredentialResult = VaultSchemas['VerifyCredentialResult'];
export type VerifyPresentationRequest = VaultSchemas['VerifyPresentationRequest'];
export type VerifyPresentationResult = VaultSchemas['VerifyPresentationResult'];
export type ProblemDetails = VaultSchemas['ProblemDetails'];

const isResult = (body: unknown): body is { verified: boolean } =>
  typeof body === 'object' && body !== null && typeof (body as { verified?: unknown }).verified === 'boolean';

function resultOf<T>(r: FetchResult<T>): T {
  if (r.data !== undefined && r.response.ok) return r.data;
  if (r.response.status === 400 && isResult(r.error)) return r.error as T;
  throw apiErrorFrom(r.response, r.error);
}

/**
 * Verifies a credential: the holder's presented one, or one of the caller's own vault by `owner` + `vcId`.
 *
 *     const r = await verifyCredential(vault, { verifiableCredential: vc, options: { checks: ['proof'] } });
 *     if (!r.verified) console.log(r.problemDetails?.filter((p) => p.level === 'error'));
 */
export async function verifyCredential(
  client: VaultClient,
  body: VerifyCredentialRequest,
): Promise<VerifyCredentialResult> {
  return resultOf(await client.POST('/credentials/verify', { body }));
}

/** Verifies a presentation (the holder's proof over `options.challenge`) and every credential in it. */
export async function verifyPresentation(
  client: VaultClient,
  body: VerifyPresentationRequest,
): Promise<VerifyPresentationResult> {
  return resultOf(await client.POST('/presentations/verify', { body }));
}

/** A challenge the service remembers, for `options.challenge`: answerable once, within 5 minutes. */
export async function createChallenge(client: VaultClient): Promise<string> {
  return unwrap(await client.POST('/challenges', { body: {} })).challenge;
}

/**
 * The problems of a result that made it fail (`level` error), without the warnings. For a presentation, its own
 * problems and then those of each credential in it (`results.credentials[i].problemDetails`): a presentation
 * whose credential was revoked fails with `revoked` here.
 */
export function failures(result: VerifyCredentialResult | VerifyPresentationResult): ProblemDetails[] {
  const own = result.problemDetails ?? [];
  const credentials = result.results && 'credentials' in result.results ? result.results.credentials : undefined;
  const inside = (credentials ?? []).flatMap((c) => c.problemDetails ?? []);
  return [...own, ...inside].filter((p) => p.level === 'error');
}
