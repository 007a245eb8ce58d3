// The first call of a registrar operation (DID Registration §create, §update, §deactivate in client-managed
// secret mode): the options and secret checked, the document mapped onto a record, the record rules and the
// DID's current state checked, the transaction prepared with the controller as its source, and a job stored
// that asks the controller to sign the transaction's hash.
import { randomUUID } from 'node:crypto';
import { StrKey, Transaction } from '@stellar/stellar-sdk';
import {
  decodeMultikey,
  didIdToBytes,
  generateDid,
  parseDid,
  validateRecord,
  type DidRecordInput,
  type ParsedDid,
} from '../../did/index.ts';
import type { PreparedTransaction } from '../../chain/index.ts';
import type { RegistrarJobStore } from '../../stores/registrar-jobs.ts';
import { ResolverError } from '../context.ts';
import { currentRecord, rethrowChain, type RouteContext, type ServedNetwork } from '../routes/shared.ts';
import { DocumentRefusal, recordOfDocument } from './document.ts';
import { RegistrarFailure, type RegistrarJob, type RegistrarOperation } from './state.ts';
import { NETWORKS, type Network } from '../../domain.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Options of did:ledger beside DID Registration's own (§options). */
const OPTIONS: ReadonlySet<string> = new Set([
  'clientSecretMode',
  'storeSecrets',
  'returnSecrets',
  'network',
  'controller',
  'metadataUri',
  'metadataHash',
]);

export interface RegistrarRequest {
  options?: Json | undefined;
  secret?: Json | undefined;
}

/** Client-managed secret mode only: the service holds no keys (§Key Management). */
export function checkSecretMode(body: RegistrarRequest): Json {
  const options = body.options ?? {};
  if (options.clientSecretMode !== true)
    throw new RegistrarFailure(
      'secret_mode_unsupported',
      'set options.clientSecretMode to true: this registrar holds no keys (internal secret mode is not offered); ' +
        'it answers a signing request, and the controller signs',
    );
  if (options.storeSecrets === true || options.returnSecrets === true)
    throw new RegistrarFailure('secret_mode_unsupported', 'storeSecrets and returnSecrets need internal secret mode');
  for (const k of Object.keys(options))
    if (!OPTIONS.has(k))
      throw new RegistrarFailure('did_document_unsupported', `options.${k} is not an option of did:ledger`);
  const secret = body.secret ?? {};
  for (const k of Object.keys(secret))
    if (k !== 'signingResponse')
      throw new RegistrarFailure('secret_mode_unsupported', `secret.${k}: this registrar takes no key material`);
  return options;
}

function optionalString(options: Json, name: string): string | undefined {
  const v = options[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new RegistrarFailure('invalid_request', `options.${name} must be a string`);
  return v;
}

function servedNetwork(ctx: RouteContext, network: Network): ServedNetwork {
  const net = ctx.served.get(network);
  if (!net) throw new RegistrarFailure('invalid_request', `this registrar does not serve ${network}`);
  return net;
}

/** update and deactivate act on the DID's own ledger: an `options.network` naming another is refused. */
function checkNetworkOf(options: Json, parsed: ParsedDid): void {
  const network = optionalString(options, 'network');
  if (network !== undefined && network !== parsed.network)
    throw new RegistrarFailure(
      'invalid_request',
      `options.network is ${network}, but ${parsed.did} is a ${parsed.network} DID (leave options.network out)`,
    );
}

function parsedDid(raw: unknown): ParsedDid {
  const parsed = parseDid(raw);
  if (!parsed.ok) throw new RegistrarFailure('did_invalid', `did: ${parsed.message}`);
  return parsed.value;
}

function checkRules(record: DidRecordInput): void {
  const first = validateRecord(record)[0];
  if (first) throw new RegistrarFailure(first.code, `record ${first.field}: ${first.message}`);
}

/** The mapped record, or the refusal naming the field. */
function mapDocument(args: Parameters<typeof recordOfDocument>[0]): DidRecordInput {
  try {
    return recordOfDocument(args);
  } catch (err) {
    if (err instanceof DocumentRefusal) throw new RegistrarFailure('did_document_unsupported', err.message);
    throw err;
  }
}

/** The account of the first authentication key (an Ed25519 Multikey is an account's public key). */
function accountOfFirstKey(document: unknown): string | undefined {
  if (!isObject(document)) return undefined;
  const methods = Array.isArray(document.verificationMethod) ? document.verificationMethod : [];
  const ref = Array.isArray(document.authentication) ? document.authentication[0] : undefined;
  const vm = typeof ref === 'string' ? methods.find((m) => isObject(m) && m.id === ref) : ref;
  const decoded = isObject(vm) ? decodeMultikey(vm.publicKeyMultibase, 'Ed25519') : undefined;
  return decoded?.ok ? StrKey.encodeEd25519PublicKey(Buffer.from(decoded.publicKey)) : undefined;
}

async function prepared(net: ServedNetwork, build: () => Promise<PreparedTransaction>): Promise<PreparedTransaction> {
  try {
    return await build();
  } catch (err) {
    try {
      return rethrowChain(err, net);
    } catch (mapped) {
      // An answer about the request (the DID exists, a contract rule) is a failed state; an outage is not.
      if (mapped instanceof ResolverError && mapped.status < 500)
        throw new RegistrarFailure(mapped.code, mapped.message);
      throw mapped;
    }
  }
}

/** The record's current state, for update and deactivate: registered and active. */
async function current(net: ServedNetwork, parsed: ParsedDid) {
  try {
    return await currentRecord(net, parsed);
  } catch (err) {
    if (err instanceof ResolverError && err.status < 500) throw new RegistrarFailure(err.code, err.message);
    throw err;
  }
}

interface NewJob {
  operation: RegistrarOperation;
  net: ServedNetwork;
  did: string;
  controller: string;
  tx: PreparedTransaction;
}

async function storeJob(ctx: RouteContext, jobs: RegistrarDeps, n: NewJob): Promise<RegistrarJob> {
  const tx = new Transaction(n.tx.xdr, n.net.networkPassphrase);
  const maxTime = Number(tx.timeBounds?.maxTime ?? 0);
  const job: RegistrarJob = {
    jobId: randomUUID(),
    operation: n.operation,
    network: n.net.name,
    networkPassphrase: n.net.networkPassphrase,
    did: n.did,
    controller: n.controller,
    transaction: n.tx.xdr,
    hash: Buffer.from(tx.hash()).toString('hex'),
    phase: 'action',
    // The job lives as long as its transaction can land.
    expiresAt: maxTime > 0 ? maxTime * 1000 : ctx.deps.now() + 5 * 60 * 1000,
  };
  await jobs.store.create(job);
  return job;
}

export interface RegistrarDeps {
  store: RegistrarJobStore;
}

export async function startCreate(
  ctx: RouteContext,
  deps: RegistrarDeps,
  body: RegistrarRequest & { didDocument?: unknown },
): Promise<RegistrarJob> {
  const options = checkSecretMode(body);
  const network = (optionalString(options, 'network') ?? 'testnet') as Network;
  if (!NETWORKS.includes(network))
    throw new RegistrarFailure('invalid_request', 'options.network must be testnet or mainnet');
  const net = servedNetwork(ctx, network);
  if (body.didDocument === undefined) throw new RegistrarFailure('invalid_request', 'didDocument is required');
  const givenId = isObject(body.didDocument) ? body.didDocument.id : undefined;
  const parsed = givenId === undefined ? generateDid({ network }) : parsedDid(givenId);
  if (parsed.network !== network)
    throw new RegistrarFailure(
      'did_invalid',
      `didDocument.id is a ${parsed.network} DID, options.network is ${network}`,
    );
  const controller = optionalString(options, 'controller') ?? accountOfFirstKey(body.didDocument);
  if (controller === undefined || !StrKey.isValidEd25519PublicKey(controller))
    throw new RegistrarFailure(
      'invalid_request',
      'options.controller must be the G… account that controls the DID (default: the account of the first Ed25519 authentication key)',
    );
  const record = mapDocument({
    did: parsed.did,
    controller,
    document: body.didDocument,
    metadataUri: optionalString(options, 'metadataUri'),
    metadataHash: optionalString(options, 'metadataHash'),
  });
  checkRules(record);
  const didId = didIdToBytes(parsed.didId);
  const tx = await prepared(net, () => net.chain.registry.register({ source: controller, didId, record }));
  return storeJob(ctx, deps, { operation: 'create', net, did: parsed.did, controller, tx });
}

export async function startUpdate(
  ctx: RouteContext,
  deps: RegistrarDeps,
  body: RegistrarRequest & { did?: unknown; didDocumentOperation?: unknown; didDocument?: unknown },
): Promise<RegistrarJob> {
  const options = checkSecretMode(body);
  const parsed = parsedDid(body.did);
  checkNetworkOf(options, parsed);
  const net = servedNetwork(ctx, parsed.network);
  if (options.controller !== undefined)
    throw new RegistrarFailure(
      'did_document_unsupported',
      'options.controller: update keeps the controller (transfer rotates it)',
    );
  const ops = body.didDocumentOperation ?? ['setDidDocument'];
  if (!Array.isArray(ops) || ops.length !== 1 || ops[0] !== 'setDidDocument')
    throw new RegistrarFailure(
      'did_document_unsupported',
      'didDocumentOperation: did:ledger updates by setDidDocument only',
    );
  const docs = body.didDocument;
  if (!Array.isArray(docs) || docs.length !== 1)
    throw new RegistrarFailure('invalid_request', 'didDocument must hold the one new document of setDidDocument');
  const now = await current(net, parsed);
  const record = mapDocument({
    did: parsed.did,
    controller: now.controller,
    document: docs[0],
    metadataUri: optionalString(options, 'metadataUri') ?? now.metadataUri,
    metadataHash:
      optionalString(options, 'metadataHash') ?? (options.metadataUri === undefined ? now.metadataHash : undefined),
  });
  checkRules(record);
  const tx = await prepared(net, () =>
    net.chain.registry.update({
      source: now.controller,
      didId: didIdToBytes(parsed.didId),
      expectedVersion: now.version,
      record,
    }),
  );
  return storeJob(ctx, deps, { operation: 'update', net, did: parsed.did, controller: now.controller, tx });
}

export async function startDeactivate(
  ctx: RouteContext,
  deps: RegistrarDeps,
  body: RegistrarRequest & { did?: unknown },
): Promise<RegistrarJob> {
  const options = checkSecretMode(body);
  for (const k of ['controller', 'metadataUri', 'metadataHash'])
    if (options[k] !== undefined)
      throw new RegistrarFailure('did_document_unsupported', `options.${k}: deactivate takes none`);
  const parsed = parsedDid(body.did);
  checkNetworkOf(options, parsed);
  const net = servedNetwork(ctx, parsed.network);
  const now = await current(net, parsed);
  const tx = await prepared(net, () =>
    net.chain.registry.deactivate({
      source: now.controller,
      didId: didIdToBytes(parsed.didId),
      expectedVersion: now.version,
    }),
  );
  return storeJob(ctx, deps, { operation: 'deactivate', net, did: parsed.did, controller: now.controller, tx });
}
