// Typed client of the Credential Vault API (spec/vault-api.yaml): openapi-fetch over the generated `paths`,
// the API key sent as `X-SVC-Key`, and the two flows every consumer writes: prepare → sign → submit, and
// the wallet-proof key (GET /auth/challenge → sign → POST /auth/keys).
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../generated/vault-api.ts';
import { unwrap } from './errors.ts';
import { preparedOf, signingPassphrase, transactionId } from './shapes.ts';
import { toSigner, type Wallet } from './wallet.ts';

export type VaultPaths = paths;
export type VaultSchemas = components['schemas'];
export type VaultClient = Client<VaultPaths>;

/** `fetch` as openapi-fetch calls it (one Request). */
export type FetchLike = (input: Request) => Promise<Response>;

export interface VaultClientOptions {
  /** Base URL of one network's vault API, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** The API key (64 hex), sent as `X-SVC-Key` (vault-api.yaml "Authentication"). */
  apiKey?: string;
  fetch?: FetchLike;
}

/** Sends the API key in the canonical header on every request. */
export function apiKeyMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('X-SVC-Key', apiKey);
      return request;
    },
  };
}

export function createVaultClient(options: VaultClientOptions): VaultClient {
  const client = createClient<VaultPaths>({
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (options.apiKey !== undefined) client.use(apiKeyMiddleware(options.apiKey));
  return client;
}

type JsonBody<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The POST routes that prepare or submit a contract write (their 200 is `WriteResponse`). */
export type VaultWritePath = {
  [P in keyof VaultPaths]: VaultPaths[P]['post'] extends {
    responses: { 200: { content: { 'application/json': VaultSchemas['WriteResponse'] } } };
  }
    ? P
    : never;
}[keyof VaultPaths];

/** The prepare body of a write route: its request body without the `{signedXdr}` submit form. */
export type PrepareBody<P extends VaultWritePath> = Exclude<
  JsonBody<VaultPaths[P]['post']>,
  VaultSchemas['SubmitRequest']
>;

export interface WriteOptions {
  /**
   * Sent as `Idempotency-Key` on the submit only: the submit changes the ledger, a prepare has no side
   * effect. The same key on both would be 422 `idempotency_key_reused` (their bodies differ). Use a fresh
   * value (a UUID) per transaction and the same one when retrying that submit.
   */
  idempotencyKey?: string;
}

/**
 * What the prepare of a write route answers: its 200 without the submit form. `PrepareResponse` on most routes;
 * `ExtendTtlPrepareResponse` on extend-ttl, whose `operation` says whether the transaction was the restore.
 */
export type PrepareAnswer<P extends VaultWritePath> = Exclude<
  VaultPaths[P]['post']['responses'][200]['content']['application/json'],
  VaultSchemas['SubmitResponse']
>;

export interface WriteResult<P extends VaultWritePath = VaultWritePath> {
  /** Hash of the final, successful transaction. */
  txId: string;
  /** What prepare answered: the unsigned XDR, the passphrase it was signed with, and what the route adds. */
  prepared: PrepareAnswer<P>;
}

// openapi-fetch cannot infer one body type across a union of paths; the public signature carries the types.
type UntypedPost = (
  path: string,
  init: { body: unknown; headers?: Record<string, string> },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Prepare → sign → submit on one write route; resolves to the transaction id once final, throws ApiError
 * for an error body of either request. `sign` is a Keypair, a browser wallet or a Signer callback.
 *
 *     const { txId } = await prepareAndSubmit(vault, '/contracts/vault/create', { owner, didUri, sourcePublicKey: owner }, keypair);
 */
export async function prepareAndSubmit<P extends VaultWritePath>(
  client: VaultClient,
  path: P,
  body: PrepareBody<P>,
  sign: Wallet,
  options: WriteOptions = {},
): Promise<WriteResult<P>> {
  const post = client.POST as unknown as UntypedPost;
  const answer = unwrap(await post(path, { body }));
  const prepared = preparedOf(answer);
  if (!prepared) throw new TypeError(`${path}: prepare answered without an unsigned transaction`);
  const signedXdr = await toSigner(sign)(prepared.xdr, signingPassphrase(prepared));
  const headers = options.idempotencyKey !== undefined ? { 'Idempotency-Key': options.idempotencyKey } : undefined;
  const txId = transactionId(unwrap(await post(path, { body: { signedXdr }, ...(headers ? { headers } : {}) })));
  if (txId === undefined) throw new TypeError(`${path}: submit answered without a transaction id`);
  return { txId, prepared: answer as PrepareAnswer<P> };
}

export interface ObtainKeyOptions {
  /** The wallet to prove control of. */
  account: string;
  /** Signs the challenge as the wallet: a Keypair, a browser wallet or a Signer callback. */
  sign: Wallet;
  /** Scopes of the new key; none = unrestricted. */
  scopes?: VaultSchemas['Scope'][];
  /** `Origin` to send (the key routes are origin-restricted when the deployment configures origins). */
  origin?: string;
}

/**
 * An API key by proving control of a wallet (vault-api.yaml GET /auth/challenge, POST /auth/keys). The key
 * in the answer is shown only once. Proving the same wallet again replaces its key.
 */
export async function obtainApiKey(
  client: VaultClient,
  options: ObtainKeyOptions,
): Promise<VaultSchemas['ApiKeyCreated']> {
  const headers = options.origin !== undefined ? { Origin: options.origin } : undefined;
  const challenge = unwrap(
    await client.GET('/auth/challenge', {
      params: { query: { account: options.account } },
      ...(headers ? { headers } : {}),
    }),
  );
  const transaction = await toSigner(options.sign)(challenge.transaction, challenge.network_passphrase);
  return unwrap(
    await client.POST('/auth/keys', {
      body: { transaction, ...(options.scopes ? { scopes: options.scopes } : {}) },
      ...(headers ? { headers } : {}),
    }),
  );
}
