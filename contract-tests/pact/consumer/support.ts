// The consumer side's plumbing: one PactV4 per provider, the typed clients pointed at the Pact mock
// server through the conformance proxy (every answer the consumer sees is checked against the spec), and
// the response templates both APIs repeat.
import { PactV4, MatchersV3 } from '@pact-foundation/pact';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  ApiError,
  createResolverClient,
  createVaultClient,
  unwrap,
  type FetchResult,
  type ResolverClient,
  type VaultClient,
} from '../../../src/client/index.ts';
import { startConformanceProxy, type ConformanceProxy } from '../conformance.ts';
import { CONSUMER, EXAMPLE, PACT_DIR, injected, like } from '../shared.ts';

const { string } = MatchersV3;

/** A new interaction of a V4 pact (the type pact-js does not export by name). */
export type Interaction = ReturnType<PactV4['addInteraction']>;
/** Provider-state parameters. */
export type StateParams = NonNullable<Parameters<Interaction['given']>[1]>;

export interface ConsumerPact {
  /** A new interaction of this pact. */
  interaction(): Interaction;
  /** The vault client, with `apiKey` sent as X-SVC-Key, aimed at the mock server of `mockUrl`. */
  vault(mockUrl: string, apiKey?: string): VaultClient;
  resolver(mockUrl: string): ResolverClient;
}

/** A pact with `provider`, and a conformance proxy for `spec` around every test of the calling file. */
export function consumerPact(provider: string, spec: string): ConsumerPact {
  const pact = new PactV4({ consumer: CONSUMER, provider, dir: PACT_DIR, logLevel: 'warn' });
  let proxy: ConformanceProxy | undefined;
  beforeAll(async () => {
    proxy = await startConformanceProxy(spec);
  });
  afterAll(async () => {
    await proxy?.close();
  });
  afterEach(() => {
    expect(proxy?.violations.splice(0) ?? [], 'answers that do not conform to the spec').toEqual([]);
  });
  const through = (mockUrl: string) => {
    if (!proxy) throw new Error('the conformance proxy is not running');
    proxy.upstream = mockUrl;
    return proxy.url;
  };
  return {
    interaction: () => pact.addInteraction(),
    vault: (mockUrl, apiKey) =>
      createVaultClient({ baseUrl: through(mockUrl), ...(apiKey !== undefined ? { apiKey } : {}) }),
    resolver: (mockUrl) => createResolverClient({ baseUrl: through(mockUrl) }),
  };
}

/** The X-SVC-Key header of a key the provider state creates. */
export const keyHeader = (name: string, example: string) => ({ 'X-SVC-Key': injected(name, example) });

/** Vault API prepare answer (`PrepareResponse`: the passphrase under both names). */
export const PREPARED = {
  xdr: like.xdr(),
  network: string(EXAMPLE.passphrase),
  networkPassphrase: string(EXAMPLE.passphrase),
};
/** Vault API submit answer (`SubmitResponse`: the hash under both names). */
export const SUBMITTED = { tx_id: like.txHash(), txId: like.txHash() };

/** The vault API's error body: the stable code exactly, any message. */
export const vaultError = (code: string, message = 'explanation for humans') => ({
  error: code,
  message: string(message),
});
/** The resolver's error envelope: the stable code exactly, any message. */
export const resolverError = (code: string, message = 'explanation for humans') => ({ code, message: string(message) });

/** Requires `result` to be an error answer with `status` and the spec's `code`, as the client reports it. */
export function expectApiError(result: FetchResult<unknown>, status: number, code: string): ApiError {
  let caught: unknown;
  try {
    unwrap(result);
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected ${status} ${code}`).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  return err;
}
