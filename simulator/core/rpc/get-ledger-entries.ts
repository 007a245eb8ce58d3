// getLedgerEntries: live entries by LedgerKey (at most 200), with their last change and live-until ledger.
import { xdr } from '@stellar/stellar-sdk';
import { liveUntilOf, type Entry } from '../entries.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';

const MAX_KEYS = 200;

export function getLedgerEntries({ ledger, codec }: RpcContext, p: Params): object {
  const keys = p.keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new RpcError(INVALID_PARAMS, 'keys must be a non-empty array');
  if (keys.length > MAX_KEYS)
    throw new RpcError(INVALID_PARAMS, `key count (${keys.length}) exceeds maximum supported (${MAX_KEYS})`);
  const seq = ledger.tick().seq;
  const entries: object[] = [];
  for (const k of keys) {
    let key: xdr.LedgerKey;
    try {
      key = xdr.LedgerKey.fromXdr(String(k), 'base64');
    } catch {
      throw new RpcError(INVALID_PARAMS, `cannot unmarshal key value ${String(k)}`);
    }
    const id = codec.keyIdOfLedgerKey(key);
    const e: Entry | undefined = id === undefined ? undefined : ledger.get(id);
    if (!e || (e.t === 'data' && e.durability === 'temporary' && e.liveUntil < seq)) continue;
    const live = liveUntilOf(e);
    entries.push({
      key: String(k),
      xdr: codec.entryXdr(e).data.toXdr('base64'),
      lastModifiedLedgerSeq: e.lm,
      ...(live !== undefined ? { liveUntilLedgerSeq: live } : {}),
    });
  }
  return { entries, latestLedger: seq };
}
