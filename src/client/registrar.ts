// The DIF Universal Registrar calls of the resolver (spec/did-resolver.yaml, tag registrar) in client-managed
// secret mode, and the reverse lookup: create, update and deactivate run the whole job (start → the signing
// request → sign with the caller's wallet → send the signature back → ask until it is no longer `wait`) and
// answer the final state; `didsOf` lists every DID a wallet controls, page after page.
import { StrKey, TransactionBuilder } from '@stellar/stellar-sdk';
import type { ResolverClient, ResolverSchemas } from './resolver.ts';
import { apiErrorFrom } from './errors.ts';
import { toSigner, type Wallet } from './wallet.ts';

export type RegistrarState = ResolverSchemas['RegistrarState'];
export type ControlledDid = ResolverSchemas['ControlledDid'];

export interface RegistrarCallOptions {
  /**
   * Signs the job's transaction: a Keypair, a browser wallet or a Signer callback `(xdr, passphrase) => signedXdr`
   * (the controller's signature of the transaction hash is taken from what it answers).
   */
  wallet: Wallet;
  /** How long to keep asking while the job waits for its ledger (default 60 s). */
  timeoutMs?: number;
  /** Waits between questions (default: the answer's waitTime, at most 1 s); injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

type Body = Record<string, unknown>;
type RegistrarPath = '/1.0/create' | '/1.0/update' | '/1.0/deactivate';

/** The controller's signature of the transaction hash, out of the envelope the wallet signed. */
async function signatureOf(state: RegistrarState, wallet: Wallet): Promise<string> {
  const request = state.didState.signingRequest?.signingRequest1;
  if (!request) throw new Error('the registrar asked for no signature');
  const signed = await toSigner(wallet)(request.payload.transaction, request.payload.networkPassphrase);
  const tx = TransactionBuilder.fromXDR(signed, request.payload.networkPassphrase);
  const hint = Buffer.from(StrKey.decodeEd25519PublicKey(request.kid)).subarray(28);
  const found = tx.signatures.find((s) => Buffer.from(s.hint.value).equals(hint));
  if (!found) throw new Error(`the wallet did not sign as ${request.kid}, the key the registrar asks for`);
  return Buffer.from(found.signature.value).toString('base64');
}

async function post(client: ResolverClient, path: RegistrarPath, body: Body): Promise<RegistrarState> {
  const call =
    path === '/1.0/create'
      ? client.POST('/1.0/create', { params: { query: { method: 'ledger' } }, body })
      : client.POST(path, { body });
  const { data, error, response } = await call;
  const answer: unknown = data ?? error;
  if (typeof answer === 'object' && answer !== null && 'didState' in answer) return answer as RegistrarState;
  throw apiErrorFrom(response, answer);
}

/** Runs one job to its end: `finished`, or `failed` (answered, not thrown). */
async function runJob(client: ResolverClient, path: RegistrarPath, first: Body, o: RegistrarCallOptions) {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const again: Body = typeof first.did === 'string' ? { did: first.did } : {};
  let state = await post(client, path, first);
  if (state.didState.state !== 'action') return state;
  const jobId = state.jobId;
  const signature = await signatureOf(state, o.wallet);
  const response = {
    signingRequest1: { signature, alg: 'EdDSA', kid: state.didState.signingRequest!.signingRequest1.kid },
  };
  state = await post(client, path, { ...again, jobId, secret: { signingResponse: response } });
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  while (state.didState.state === 'wait') {
    if (Date.now() > deadline) throw new Error(`job ${jobId} still waits after ${o.timeoutMs ?? 60_000} ms`);
    await sleep(Math.min(state.didState.waitTime ?? 1000, 1000));
    state = await post(client, path, { ...again, jobId });
  }
  return state;
}

export interface Registrar {
  /** create(): `didDocument` mapped onto a record; `options.controller` names the controller (else the first key). */
  create(
    o: RegistrarCallOptions & { didDocument: Body; network?: 'testnet' | 'mainnet'; options?: Body },
  ): Promise<RegistrarState>;
  /** update() by setDidDocument: the new document replaces keys and services. */
  update(o: RegistrarCallOptions & { did: string; didDocument: Body; options?: Body }): Promise<RegistrarState>;
  /** deactivate(): irreversible. */
  deactivate(o: RegistrarCallOptions & { did: string }): Promise<RegistrarState>;
}

/** The registrar of a resolver client. */
export function createRegistrar(client: ResolverClient): Registrar {
  return {
    create: (o) =>
      runJob(
        client,
        '/1.0/create',
        {
          options: { clientSecretMode: true, network: o.network ?? 'testnet', ...o.options },
          didDocument: o.didDocument,
        },
        o,
      ),
    update: (o) =>
      runJob(
        client,
        '/1.0/update',
        {
          did: o.did,
          options: { clientSecretMode: true, ...o.options },
          didDocumentOperation: ['setDidDocument'],
          didDocument: [o.didDocument],
        },
        o,
      ),
    deactivate: (o) => runJob(client, '/1.0/deactivate', { did: o.did, options: { clientSecretMode: true } }, o),
  };
}

export interface DidsOf {
  dids: ControlledDid[];
  /** How far back the index reaches (ledgers): a DID last changed before `fromLedger` shows once resolved. */
  index: { fromLedger: number; toLedger: number };
}

/** Every DID `controller` controls on `network` (GET /v1/dids/stellar?controller=), all pages. */
export async function didsOf(
  client: ResolverClient,
  controller: string,
  o: { network?: 'testnet' | 'mainnet'; status?: 'active' | 'deactivated' | 'all' } = {},
): Promise<DidsOf> {
  const dids: ControlledDid[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = {
      controller,
      limit: 200,
      ...(o.network ? { network: o.network } : {}),
      ...(o.status ? { status: o.status } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const { data, error, response } = await client.GET('/v1/dids/stellar', { params: { query } });
    if (!data) throw apiErrorFrom(response, error);
    dids.push(...data.dids);
    cursor = data.nextCursor;
    if (!cursor) return { dids, index: data.index };
  }
}
