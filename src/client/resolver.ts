// Typed client of the did:ledger registry and resolver (spec/did-resolver.yaml): openapi-fetch over the
// generated `paths`, resolution whose failures are data (a W3C resolution result), and the registry's
// prepare → sign → submit mutations.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../generated/did-resolver.ts';
import { apiErrorFrom, unwrap } from './errors.ts';
import { preparedOf, signingPassphrase, transactionId } from './shapes.ts';
import type { FetchLike } from './vault.ts';
import { toSigner, type Wallet } from './wallet.ts';

export type ResolverPaths = paths;
export type ResolverSchemas = components['schemas'];
export type ResolverClient = Client<ResolverPaths>;

export interface ResolverClientOptions {
  /** Base URL of the resolver, e.g. http://127.0.0.1:3001. */
  baseUrl: string;
  fetch?: FetchLike;
}

export function createResolverClient(options: ResolverClientOptions): ResolverClient {
  return createClient<ResolverPaths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
}

/** A resolution result in any representation (did-resolver.yaml GET /1.0/identifiers/{did}). */
export type ResolutionResult =
  | ResolverSchemas['ResolutionResultLd']
  | ResolverSchemas['ResolutionResultJson']
  | ResolverSchemas['ResolutionFailure'];

export interface Resolution {
  /** 200 resolved, 410 deactivated (tombstone), 400 invalidDid or invalidOptions, 404 notFound, 406, 502. */
  status: number;
  result: ResolutionResult;
}

const isResolutionResult = (v: unknown): v is ResolutionResult =>
  typeof v === 'object' && v !== null && 'didResolutionMetadata' in v && 'didDocumentMetadata' in v;

/**
 * Resolves a DID. Resolution failures (invalid, not found, deactivated, ledger down) come back as the
 * result they are, never thrown; only an answer that is not a resolution result (429 rate limit, 500)
 * throws ApiError.
 */
export async function resolveDid(
  client: ResolverClient,
  did: string,
  options: { accept?: string } = {},
): Promise<Resolution> {
  const { data, error, response } = await client.GET('/1.0/identifiers/{did}', {
    params: { path: { did } },
    ...(options.accept ? { headers: { Accept: options.accept } } : {}),
  });
  const body: unknown = data ?? error;
  if (isResolutionResult(body)) return { status: response.status, result: body };
  throw apiErrorFrom(response, body);
}

/** What a DID URL with a fragment dereferences to (spec resolveDid, "DID URL dereferencing"). */
export type Dereferenced =
  | ResolverSchemas['VerificationMethod']
  | ResolverSchemas['DereferencedService']
  | ResolverSchemas['DereferencedVerificationMethodLd']
  | ResolverSchemas['DereferencedServiceLd']
  | ResolverSchemas['DereferencingResult']
  | ResolverSchemas['DereferencingFailure'];

/**
 * Dereferences a DID URL with a fragment (`did:ledger:testnet:…#assert-1`): the verification method or
 * service it names (alone for the DID Core media types, inside a dereferencing result for
 * `application/did-resolution`), or a dereferencing failure (404 notFound, 410, 400 invalidDidUrl), never
 * thrown; only an answer that is neither (429, 500) throws ApiError.
 */
export async function dereferenceDidUrl(
  client: ResolverClient,
  didUrl: string,
  options: { accept?: string } = {},
): Promise<{ status: number; body: Dereferenced }> {
  if (!didUrl.includes('#'))
    throw new TypeError('a DID URL to dereference has a fragment (#…); resolve a DID with resolveDid');
  const { data, error, response } = await client.GET('/1.0/identifiers/{did}', {
    params: { path: { did: didUrl } },
    ...(options.accept ? { headers: { Accept: options.accept } } : {}),
  });
  const body: unknown = data ?? error;
  if (
    typeof body === 'object' &&
    body !== null &&
    ('dereferencingMetadata' in body || ('id' in body && 'type' in body))
  ) {
    return { status: response.status, body: body as Dereferenced };
  }
  throw apiErrorFrom(response, body);
}

export interface DidWriteResult {
  txId: string;
  prepared: ResolverSchemas['PrepareResponse'];
}

type UntypedPost = (
  path: string,
  init: { body: unknown; params?: { path: { did: string } } },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

async function prepareSignSubmit(
  client: ResolverClient,
  path: string,
  did: string | undefined,
  body: unknown,
  sign: Wallet,
): Promise<DidWriteResult> {
  const post = client.POST as unknown as UntypedPost;
  const params = did !== undefined ? { params: { path: { did } } } : {};
  const answer = unwrap(await post(path, { body, ...params }));
  const prepared = preparedOf(answer);
  if (!prepared) throw new TypeError(`${path}: prepare answered without an unsigned transaction`);
  const signedXdr = await toSigner(sign)(prepared.xdr, signingPassphrase(prepared));
  const txId = transactionId(unwrap(await post(path, { body: { signedXdr }, ...params })));
  if (txId === undefined) throw new TypeError(`${path}: submit answered without a transaction id`);
  return { txId, prepared: answer as ResolverSchemas['PrepareResponse'] };
}

/** Registers a DID: prepare `register` → the controller signs → submit. */
export function registerDid(
  client: ResolverClient,
  body: ResolverSchemas['RegisterPrepareRequest'],
  sign: Wallet,
): Promise<DidWriteResult> {
  return prepareSignSubmit(client, '/v1/dids/stellar', undefined, body, sign);
}

export interface DidMutations {
  update: ResolverSchemas['UpdatePrepareRequest'];
  transfer: ResolverSchemas['TransferPrepareRequest'];
  deactivate: ResolverSchemas['DeactivatePrepareRequest'];
}

/** Updates, transfers or deactivates a DID: prepare → the current controller signs → submit. */
export function mutateDid<K extends keyof DidMutations>(
  client: ResolverClient,
  kind: K,
  did: string,
  body: DidMutations[K],
  sign: Wallet,
): Promise<DidWriteResult> {
  return prepareSignSubmit(client, `/v1/dids/stellar/{did}/${kind}`, did, body, sign);
}
