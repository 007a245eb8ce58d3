// What the route modules share: the served networks, DID parsing in the spec's codes, ledger reads with
// their failures in the resolver's words, and the resolution cache.
import type { Request } from 'express';
import { ChainError, REGISTRY_ERRORS } from '../../chain/index.ts';
import {
  decodeDidParam,
  didIdToBytes,
  parseDid,
  xmlDateTime,
  type DidRecord,
  type ParsedDid,
} from '../../did/index.ts';
import {
  didInvalid,
  invalidRequest,
  ResolverError,
  ResolverErrors,
  type ResolverAppDeps,
  type ResolverErrorCode,
  type ResolverNetwork,
} from '../context.ts';
import { eventLedgerCloseTime, type LedgerCloseTime } from '../../chain/ledger-time.ts';
import { ResolutionCache, type ResolvedEntry } from './resolution-cache.ts';
import type { Network } from '../../domain.ts';

export interface ServedNetwork extends ResolverNetwork {
  name: Network;
  closeTime: LedgerCloseTime;
}

export interface RouteContext {
  deps: ResolverAppDeps;
  served: ReadonlyMap<Network, ServedNetwork>;
  cache: ResolutionCache;
  /** Told each record read from the ledger by resolution (the reverse lookup learns older DIDs so); never throws. */
  recordRead?: (parsed: ParsedDid, record: DidRecord) => Promise<void>;
}

export function createRouteContext(deps: ResolverAppDeps): RouteContext {
  const served = new Map<Network, ServedNetwork>();
  for (const name of ['testnet', 'mainnet'] as const) {
    const net = deps.networks[name];
    if (!net) continue;
    // through the chain's client: its timeouts, and its metrics (client.getEvents)
    const closeTime =
      net.ledgerCloseTime ?? eventLedgerCloseTime({ client: net.chain.client, registryId: net.registryId });
    served.set(name, { ...net, name, closeTime });
  }
  const cache = new ResolutionCache({
    cache: deps.cache,
    ttlMs: deps.limits.cacheTtlMs,
    onError: (err) => deps.log?.({ event: 'cache_unavailable', message: (err as Error)?.message ?? String(err) }),
  });
  return { deps, served, cache };
}

/** A DID from a path segment (optionally URL-encoded) or a body field; `did_invalid` otherwise. */
export function parseDidOrThrow(raw: unknown, { fromPath = false } = {}): ParsedDid {
  const value = fromPath && typeof raw === 'string' ? decodeDidParam(raw) : raw;
  const parsed = parseDid(value);
  if (!parsed.ok) throw didInvalid(typeof value === 'string' ? value : JSON.stringify(value), parsed.message);
  return parsed.value;
}

/**
 * The ledger of the DID's network. A syntactically valid DID of a network this deployment does not serve
 * is `did_invalid` (resolution: `invalidDid`): decidable from the string alone, and a 404 would suggest it
 * might be registered later (spec "Networks and routing").
 */
export function networkOf(ctx: RouteContext, parsed: ParsedDid): ServedNetwork {
  const net = ctx.served.get(parsed.network);
  if (!net) throw didInvalid(parsed.did, notServedMessage(ctx, parsed.network));
  return net;
}

export function notServedMessage(ctx: RouteContext, network: Network): string {
  return `this resolver does not serve ${network} (served: ${[...ctx.served.keys()].join(', ') || 'none'})`;
}

/** A ChainError in the resolver's words; anything else passes through to the error handler. */
export function rethrowChain(err: unknown, net: ServedNetwork): never {
  if (err instanceof ChainError) throw fromChainError(err, net.name);
  throw err;
}

/** The registry's record (a ledger-entry read, no transaction); undefined when not registered. */
export async function readRecord(net: ServedNetwork, parsed: ParsedDid): Promise<DidRecord | undefined> {
  try {
    return (await net.chain.registry.get(didIdToBytes(parsed.didId)))?.record;
  } catch (err) {
    if (err instanceof ChainError) throw fromChainError(err, net.name);
    // A reply that does not decode as a record: the RPC answered garbage.
    throw ResolverErrors.ledgerUnavailable(
      `${net.name} RPC answered an unreadable record: ${(err as Error)?.message ?? String(err)}`,
    );
  }
}

/** The record with the close times of its ledgers, as the resolution cache keeps it. */
export async function readEntry(net: ServedNetwork, parsed: ParsedDid): Promise<ResolvedEntry | undefined> {
  const record = await readRecord(net, parsed);
  if (!record) return undefined;
  const [created, updated] = await Promise.all([
    net.closeTime(record.createdLedger),
    record.updatedLedger === record.createdLedger ? undefined : net.closeTime(record.updatedLedger),
  ]);
  const updatedAt = record.updatedLedger === record.createdLedger ? created : updated;
  return {
    record,
    ...(created ? { created: xmlDateTime(created) } : {}),
    ...(updatedAt ? { updated: xmlDateTime(updatedAt) } : {}),
  };
}

/** The current record of a mutation's DID: registered (404 did_not_found) and active (409 did_deactivated). */
export async function currentRecord(net: ServedNetwork, parsed: ParsedDid): Promise<DidRecord> {
  const record = await readRecord(net, parsed);
  if (!record) throw ResolverErrors.didNotFound(`${parsed.did} is not registered`);
  if (record.deactivated) throw ResolverErrors.didDeactivated(`${parsed.did} is deactivated`);
  return record;
}

/** Optimistic concurrency (spec: version_mismatch, 409, details with both versions). */
export function checkVersion(parsed: ParsedDid, record: DidRecord, expectedVersion: number): void {
  if (record.version !== expectedVersion) {
    throw ResolverErrors.versionMismatch(
      `expectedVersion ${expectedVersion} but ${parsed.did} is at version ${record.version}`,
      {
        expectedVersion,
        currentVersion: record.version,
      },
    );
  }
}

/**
 * Codes the registry's failures keep as they are: the chain already mapped the contract's number
 * (REGISTRY_ERRORS), or recognised a stale footprint (409 `tx_stale`: prepare again).
 */
const CONTRACT_CODES: ReadonlySet<string> = new Set([
  ...Object.values(REGISTRY_ERRORS).map((r) => r.code),
  'tx_stale',
  'tx_expired',
]);
const isContractCode = (code: string): code is ResolverErrorCode => CONTRACT_CODES.has(code);

const CONTRACT_ERROR = /Error\(Contract, #(\d+)\)/;

/** A chain failure in the resolver's words; `network` names the ledger in messages. */
export function fromChainError(e: ChainError, network: string): ResolverError {
  const tx = e.txId ? { txId: e.txId } : {};
  switch (e.code) {
    case 'chain_unavailable':
      return ResolverErrors.ledgerUnavailable(
        e.message.replace(/^chain RPC unavailable(?=[ :])/, `${network} RPC unreachable`),
        e.txId ? tx : undefined,
      );
    case 'tx_timeout':
      return ResolverErrors.ledgerUnavailable(`${network}: ${e.message}`, tx);
    case 'tx_invalid':
      return invalidRequest(e.message, [{ path: '/body/signedXdr', message: e.message }]);
    case 'source_account_not_found':
      return invalidRequest(e.message, [{ path: '/body/sourcePublicKey', message: e.message }]);
    case 'tx_operation_mismatch':
      return ResolverErrors.txOperationMismatch(e.message);
  }
  const text = e.chainMessage ?? e.message;
  const n = CONTRACT_ERROR.exec(text);
  if (isContractCode(e.code)) {
    return new ResolverError(e.code, e.message, { ...(n ? { contractError: Number(n[1]) } : {}), ...tx });
  }
  const rejected = /transaction rejected: (\S+)/.exec(text);
  const failed = /transaction failed: (\S+)/.exec(text);
  const status = rejected ? 'ERROR' : failed ? 'FAILED' : 'SIMULATION_FAILED';
  const resultCode = (rejected ?? failed)?.[1];
  return ResolverErrors.txSubmissionFailed(e.message, {
    status,
    ...(resultCode ? { resultCode } : {}),
    ...tx,
    ...(n ? { contractError: Number(n[1]) } : {}),
    chainMessage: text,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The DID of the path, the body or the challenge, when present and invalid. */
export function invalidDidIn(req: Request): ResolverError | undefined {
  const body: unknown = req.body;
  const candidates: unknown[] = [];
  // The validator runs before the router, so req.params is still empty here: read the path parameter
  // the validator matched (req.openapi.pathParams).
  const openapi = (req as Request & { openapi?: { pathParams?: Record<string, unknown> } }).openapi;
  const param = (req.params as Record<string, unknown> | undefined)?.did ?? openapi?.pathParams?.did;
  if (typeof param === 'string') candidates.push(decodeDidParam(param));
  if (isObject(body) && !('signedXdr' in body)) {
    if ('did' in body) candidates.push(body.did);
    if (isObject(body.challenge) && 'did' in body.challenge) candidates.push(body.challenge.did);
  }
  for (const did of candidates) {
    const parsed = parseDid(did);
    if (!parsed.ok) return didInvalid(typeof did === 'string' ? did : JSON.stringify(did), parsed.message);
  }
  return undefined;
}
