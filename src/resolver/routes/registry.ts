// The registry routes (spec tag "registry"): the raw record, the four prepare-or-submit mutations and the
// submit of any registry transaction. Prepare checks the record rules and the current state before the
// transaction is built; submit checks that the signed transaction is what the route stands for (the
// registry of the DID's network, the route's function, the path's DID) before it is sent.
import { StrKey } from '@stellar/stellar-sdk';
import {
  ChainError,
  decodeDeactivateArgs,
  decodeRegisterArgs,
  decodeTransferControllerArgs,
  decodeUpdateArgs,
  type Invocation,
  type PreparedTransaction,
} from '../../chain/index.ts';
import { bytesToDidId, didIdToBytes, validateRecord, type DidRecordInput, type ParsedDid } from '../../did/index.ts';
import type { components, operations } from '../../generated/did-resolver.ts';
import type { DidOperation } from '../../observability/index.ts';
import type { OperationHandler, OperationResponse } from '../../platform/typed.ts';
import { writeOperation, type WriteOptions } from '../../platform/write.ts';
import { invalidRequest, recordError, ResolverError, ResolverErrors } from '../context.ts';
import {
  checkVersion,
  currentRecord,
  fromChainError,
  networkOf,
  parseDidOrThrow,
  readRecord,
  rethrowChain,
  type RouteContext,
  type ServedNetwork,
} from './shared.ts';

/** The registry functions a submitted transaction may invoke, with their argument decoders. */
const MUTATIONS = {
  register: decodeRegisterArgs,
  update: decodeUpdateArgs,
  transfer_controller: decodeTransferControllerArgs,
  deactivate: decodeDeactivateArgs,
} as const;
type RegistryFn = keyof typeof MUTATIONS;

const mismatch = (message: string) => ResolverErrors.txOperationMismatch(message);

/** The record of a prepare body, field by field (the schema already refused anything else). */
function recordInput(r: components['schemas']['DidRecordInput']): DidRecordInput {
  const keys = (ks: { publicKeyMultibase: string }[]) => ks.map((k) => ({ publicKeyMultibase: k.publicKeyMultibase }));
  return {
    controller: r.controller,
    authentication: keys(r.authentication),
    assertionMethod: keys(r.assertionMethod),
    keyAgreement: keys(r.keyAgreement),
    services: r.services.map((s) => ({
      idSuffix: s.idSuffix,
      serviceType: s.serviceType,
      serviceEndpoint: s.serviceEndpoint,
    })),
    ...(r.metadataUri !== undefined ? { metadataUri: r.metadataUri } : {}),
    ...(r.metadataHash !== undefined ? { metadataHash: r.metadataHash } : {}),
  };
}

function checkRecord(record: DidRecordInput): void {
  const violations = validateRecord(record);
  if (violations.length > 0) throw recordError(violations);
}

function checkAccount(value: unknown, field: string): string {
  if (typeof value !== 'string' || !StrKey.isValidEd25519PublicKey(value)) {
    throw invalidRequest(`${field} must be a classic G… account address`, [
      { path: `/body/${field}`, message: 'must be a G… account with a valid checksum' },
    ]);
  }
  return value;
}

/** The registry's write operations: each answers PrepareResponse or SubmitResponse. */
type WriteOp = operations[
  | 'registerDid'
  | 'updateDid'
  | 'transferDidController'
  | 'deactivateDid'
  | 'submitDidTransaction'];

function prepared(res: OperationResponse<WriteOp>, net: ServedNetwork, tx: PreparedTransaction): void {
  res.json({ xdr: tx.xdr, network: net.name, networkPassphrase: net.networkPassphrase });
}

async function prepare(net: ServedNetwork, build: () => Promise<PreparedTransaction>): Promise<PreparedTransaction> {
  try {
    return await build();
  } catch (err) {
    return rethrowChain(err, net);
  }
}

/** Without a DID in the path the network is the one whose registry the transaction invokes (spec). */
function networkOfTransaction(ctx: RouteContext, signedXdr: string): ServedNetwork {
  const nets = [...ctx.served.values()];
  const first = nets[0];
  if (!first) throw mismatch('this resolver serves no network');
  let inv: Invocation;
  try {
    inv = first.chain.client.inspect(signedXdr);
  } catch (err) {
    return rethrowChain(err, first);
  }
  const candidates = nets.filter((n) => n.registryId === inv.contractId);
  if (candidates.length === 0) {
    throw mismatch(`the transaction invokes ${inv.contractId}, no DID registry of a configured network`);
  }
  // Two networks with one registry id: the passphrase the transaction was signed for decides.
  return candidates.find((n) => safeSignedBy(n, signedXdr)) ?? candidates[0]!;
}

function safeSignedBy(net: ServedNetwork, signedXdr: string): boolean {
  try {
    return net.chain.client.inspect(signedXdr).signedBy.length > 0;
  } catch {
    return false;
  }
}

/**
 * Safe submit: the transaction must invoke the registry of `net`, one of `fns`, for the path's DID when there
 * is one; register and update carry a record, which must pass the record rules. Evicts the DID's cached
 * resolution afterwards, whatever the outcome (a timed-out transaction may still land).
 */
async function submit(
  ctx: RouteContext,
  signedXdr: string,
  opts: { fns: RegistryFn[]; did?: ParsedDid },
): Promise<{ txId: string }> {
  const sent = await submitChecked(ctx, signedXdr, opts);
  ctx.deps.metrics?.domain.didWritten(sent.network, DID_OPERATIONS[sent.fn]);
  return { txId: sent.txId };
}

/** What the metrics call each registry function. */
const DID_OPERATIONS: Record<RegistryFn, DidOperation> = {
  register: 'register',
  update: 'update',
  transfer_controller: 'transfer',
  deactivate: 'deactivate',
};

async function submitChecked(
  ctx: RouteContext,
  signedXdr: string,
  opts: { fns: RegistryFn[]; did?: ParsedDid },
): Promise<{ txId: string; network: string; fn: RegistryFn }> {
  const net = opts.did ? networkOf(ctx, opts.did) : networkOfTransaction(ctx, signedXdr);
  let didId: string | undefined;
  let fn: RegistryFn | undefined;
  const expect = (inv: Invocation): void => {
    if (inv.contractId !== net.registryId) {
      throw mismatch(
        `the transaction invokes ${inv.contractId}, not the DID registry of ${net.name} (${net.registryId})`,
      );
    }
    if (!(opts.fns as string[]).includes(inv.fn)) {
      throw mismatch(
        opts.fns.length === 1
          ? `the transaction invokes ${inv.fn}, this route submits ${opts.fns[0]}`
          : `the transaction invokes ${inv.fn}, not one of ${opts.fns.join(', ')}`,
      );
    }
    const args = MUTATIONS[inv.fn as RegistryFn](inv);
    const id = bytesToDidId(args.didId);
    if (opts.did && id !== opts.did.didId) {
      throw mismatch(`the transaction is for did:ledger:${net.name}:${id}, the path names ${opts.did.did}`);
    }
    if ('record' in args) checkRecord(args.record);
    didId = id;
    fn = inv.fn as RegistryFn;
  };
  try {
    // What the transaction does is checked before its signatures, so that a transaction of another
    // network's registry is a mismatch rather than a signature failure (tx_invalid).
    expect(net.chain.client.inspect(signedXdr));
    const { txId } = await net.chain.client.submit(signedXdr, expect, { contract: 'registry' });
    return { txId, network: net.name, fn: fn! };
  } catch (err) {
    if (err instanceof ChainError) {
      const mapped = fromChainError(err, net.name);
      if (mapped.code === 'version_mismatch' && didId) await addCurrentVersion(net, didId, mapped);
      throw mapped;
    }
    throw err;
  } finally {
    if (didId) await ctx.cache.evict(net.name, didId);
  }
}

/** version_mismatch details carry both versions (spec); best effort after an on-chain failure. */
async function addCurrentVersion(net: ServedNetwork, didId: string, e: ResolverError): Promise<void> {
  try {
    const record = await readRecord(net, { did: `did:ledger:${net.name}:${didId}`, network: net.name, didId });
    if (record && e.details) e.details.currentVersion = record.version;
  } catch {
    // the code stands without the detail
  }
}

export function registryRoutes(ctx: RouteContext) {
  /** Prepare or submit (src/platform/write.ts); a submit's outcome is counted under `route`. */
  const write = (route: string) =>
    ({
      routeOf: () => route,
      codeOf: (err: unknown) => (err instanceof ResolverError ? err.code : undefined),
      ...(ctx.deps.metrics ? { submitted: ctx.deps.metrics.domain.submitted.bind(ctx.deps.metrics.domain) } : {}),
    }) satisfies WriteOptions;

  const getRecord: OperationHandler<operations['getDidRecord']> = async (req, res) => {
    const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
    const net = networkOf(ctx, parsed);
    const record = await readRecord(net, parsed);
    if (!record) throw ResolverErrors.didNotFound(`${parsed.did} is not registered`);
    await ctx.recordRead?.(parsed, record);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ did: parsed.did, didId: parsed.didId, record });
  };

  /** POST /v1/dids/stellar: register. */
  const register = writeOperation<operations['registerDid']>(write('/v1/dids/stellar'), {
    submit: async (signedXdr, _req, res) => void res.json(await submit(ctx, signedXdr, { fns: ['register'] })),
    prepare: async (body, _req, res) => {
      const parsed = parseDidOrThrow(body.did);
      const net = networkOf(ctx, parsed);
      const record = recordInput(body.record);
      checkRecord(record);
      const source = checkAccount(body.sourcePublicKey, 'sourcePublicKey');
      prepared(
        res,
        net,
        await prepare(net, () => net.chain.registry.register({ source, didId: didIdToBytes(parsed.didId), record })),
      );
    },
  });

  /** POST /v1/dids/stellar/{did}/update: a full replacement; the controller stays (transfer rotates it). */
  const update = writeOperation<operations['updateDid']>(write('/v1/dids/stellar/{did}/update'), {
    submit: async (signedXdr, req, res) => {
      const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
      res.json(await submit(ctx, signedXdr, { fns: ['update'], did: parsed }));
    },
    prepare: async (body, req, res) => {
      const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
      const net = networkOf(ctx, parsed);
      const record = recordInput(body.record);
      checkRecord(record);
      const source = checkAccount(body.sourcePublicKey, 'sourcePublicKey');
      const expectedVersion = body.expectedVersion;
      const current = await currentRecord(net, parsed);
      checkVersion(parsed, current, expectedVersion);
      if (record.controller !== current.controller) {
        const message = `controller must stay ${current.controller}; rotate it with /transfer`;
        throw recordError([{ code: 'invalid_record', field: 'controller', message }]);
      }
      prepared(
        res,
        net,
        await prepare(net, () =>
          net.chain.registry.update({ source, didId: didIdToBytes(parsed.didId), expectedVersion, record }),
        ),
      );
    },
  });

  /** POST /v1/dids/stellar/{did}/transfer: rotate the controlling wallet. */
  const transfer = writeOperation<operations['transferDidController']>(write('/v1/dids/stellar/{did}/transfer'), {
    submit: async (signedXdr, req, res) => {
      const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
      res.json(await submit(ctx, signedXdr, { fns: ['transfer_controller'], did: parsed }));
    },
    prepare: async (body, req, res) => {
      const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
      const net = networkOf(ctx, parsed);
      const newController = checkAccount(body.newController, 'newController');
      const source = checkAccount(body.sourcePublicKey, 'sourcePublicKey');
      const expectedVersion = body.expectedVersion;
      checkVersion(parsed, await currentRecord(net, parsed), expectedVersion);
      prepared(
        res,
        net,
        await prepare(net, () =>
          net.chain.registry.transferController({
            source,
            didId: didIdToBytes(parsed.didId),
            expectedVersion,
            newController,
          }),
        ),
      );
    },
  });

  /** POST /v1/dids/stellar/{did}/deactivate: irreversible. */
  const deactivate = writeOperation<operations['deactivateDid']>(write('/v1/dids/stellar/{did}/deactivate'), {
    submit: async (signedXdr, req, res) => {
      const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
      res.json(await submit(ctx, signedXdr, { fns: ['deactivate'], did: parsed }));
    },
    prepare: async (body, req, res) => {
      const parsed = parseDidOrThrow(req.params.did, { fromPath: true });
      const net = networkOf(ctx, parsed);
      const source = checkAccount(body.sourcePublicKey, 'sourcePublicKey');
      const expectedVersion = body.expectedVersion;
      checkVersion(parsed, await currentRecord(net, parsed), expectedVersion);
      prepared(
        res,
        net,
        await prepare(net, () =>
          net.chain.registry.deactivate({ source, didId: didIdToBytes(parsed.didId), expectedVersion }),
        ),
      );
    },
  });

  /** POST /v1/dids/stellar/submit: any signed registry mutation of a served network. */
  const submitAny = writeOperation<operations['submitDidTransaction']>(write('/v1/dids/stellar/submit'), {
    submit: async (signedXdr, _req, res) =>
      void res.json(await submit(ctx, signedXdr, { fns: Object.keys(MUTATIONS) as RegistryFn[] })),
    // The body is `{signedXdr}` alone (SubmitRequest): request validation refuses any other.
    prepare: async () => {
      throw ResolverErrors.invalidRequest('this route only submits: send {signedXdr}');
    },
  });

  return { getRecord, register, update, transfer, deactivate, submitAny };
}
