// The DID registry's events (docs/chain-abi.md "DID registry": did_registered{did_id, controller, version},
// did_updated{did_id, version}, did_controller_transferred{did_id, old_controller, new_controller, version},
// did_deactivated{did_id, version}) read with getEvents and decoded into typed changes, one page at a time.
// A page starts at a ledger (the first read) or at the cursor the previous page ended with.
import { scValToNative, xdr } from '@stellar/stellar-sdk';
import type { ChainClient } from './types.ts';

/** One registry event, decoded; `didId` is the 16 raw bytes. */
export type RegistryEvent =
  | { kind: 'registered'; didId: Uint8Array; controller: string; version: number; ledger: number }
  | { kind: 'updated'; didId: Uint8Array; version: number; ledger: number }
  | { kind: 'transferred'; didId: Uint8Array; controller: string; version: number; ledger: number }
  | { kind: 'deactivated'; didId: Uint8Array; version: number; ledger: number };

export interface RegistryEventPage {
  events: RegistryEvent[];
  /** Where the next page starts. */
  cursor: string;
  latestLedger: number;
  /** The oldest ledger whose events the RPC still keeps (when it says). */
  oldestLedger?: number;
  /** True when the page was cut by `limit` (more events may follow at once). */
  full: boolean;
}

const KINDS: Record<string, RegistryEvent['kind']> = {
  did_registered: 'registered',
  did_updated: 'updated',
  did_controller_transferred: 'transferred',
  did_deactivated: 'deactivated',
};

/** The oldest ledger the RPC named when it refused a start ledger (stellar-rpc's message), if it did. */
export function oldestLedgerOf(err: unknown): number | undefined {
  const m = /oldest ledger:?\s*(\d+)/i.exec((err as Error)?.message ?? String(err));
  return m ? Number(m[1]) : undefined;
}

function decode(topic: readonly xdr.ScVal[], value: xdr.ScVal, ledger: number): RegistryEvent | undefined {
  const first = topic[0];
  const name: unknown = first === undefined ? undefined : scValToNative(first);
  const kind = typeof name === 'string' ? KINDS[name] : undefined;
  if (!kind) return undefined;
  const data = scValToNative(value) as Record<string, unknown>;
  const didId = data.did_id;
  const version = Number(data.version);
  if (!(didId instanceof Uint8Array) || didId.length !== 16 || !Number.isInteger(version)) return undefined;
  switch (kind) {
    case 'registered':
      return typeof data.controller === 'string'
        ? { kind, didId, controller: data.controller, version, ledger }
        : undefined;
    case 'transferred':
      return typeof data.new_controller === 'string'
        ? { kind, didId, controller: data.new_controller, version, ledger }
        : undefined;
    default:
      return { kind, didId, version, ledger };
  }
}

/** One page of the registry's events, from `start` (a ledger, or the previous page's cursor). */
export async function readRegistryEvents(
  client: Pick<ChainClient, 'getEvents'>,
  registryId: string,
  start: { ledger: number } | { cursor: string },
  limit = 200,
): Promise<RegistryEventPage> {
  const filters = [{ type: 'contract' as const, contractIds: [registryId] }];
  const res = await client.getEvents(
    'cursor' in start ? { cursor: start.cursor, filters, limit } : { startLedger: start.ledger, filters, limit },
  );
  const events: RegistryEvent[] = [];
  for (const e of res.events) {
    const decoded = decode(e.topic, e.value, e.ledger);
    if (decoded) events.push(decoded);
  }
  return {
    events,
    cursor: res.cursor,
    latestLedger: res.latestLedger,
    ...(typeof res.oldestLedger === 'number' ? { oldestLedger: res.oldestLedger } : {}),
    full: res.events.length >= limit,
  };
}
