// getLedgerEntries: live entries by LedgerKey (at most 200), with their last change and live-until ledger. As
// stellar-rpc's methods/get_ledger_entries.go: a TTL key is refused (TTLs come with their entries), a bad format
// or key is -32602, and `xdrFormat: "json"` answers keyJson and dataJson. Of the network's configuration entries,
// the state archival settings are answered (the TTLs a client needs to extend entries: docs/chain-abi.md "State
// archival"); the simulator models no other.
import { xdr } from '@stellar/stellar-sdk';
import { xdrBase64 } from '../crypto.ts';
import { liveUntilOf, type Entry } from '../entries.ts';
import { isArchived, isExpiredTemporary } from '../invocation.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';
import { xdrFormatOf } from './xdr-format.ts';

const MAX_KEYS = 200;

function keysOf(p: Params): xdr.LedgerKey[] {
  const keys = p.keys ?? [];
  if (!Array.isArray(keys)) throw new RpcError(INVALID_PARAMS, 'keys must be an array of base64 LedgerKeys');
  if (keys.length > MAX_KEYS)
    throw new RpcError(INVALID_PARAMS, `key count (${keys.length}) exceeds maximum supported (${MAX_KEYS})`);
  return keys.map((k, i) => {
    let key: xdr.LedgerKey;
    try {
      key = xdr.LedgerKey.fromXdr(String(k), 'base64');
    } catch {
      throw new RpcError(INVALID_PARAMS, `cannot unmarshal key value ${String(k)} at index ${i}`);
    }
    if (key.type === 'ttl') throw new RpcError(INVALID_PARAMS, 'ledger ttl entries cannot be queried directly');
    return key;
  });
}

export function getLedgerEntries(ctx: RpcContext, p: Params): object {
  const { ledger, codec } = ctx;
  const format = xdrFormatOf(p);
  if (typeof format !== 'string') throw new RpcError(INVALID_PARAMS, format.refused);
  const keys = keysOf(p);
  const seq = ledger.tick().seq;
  const entries: object[] = [];
  for (const key of keys) {
    if (key.type === 'configSetting') {
      const entry = configSettingEntry(ctx, key);
      if (entry) entries.push(answer(ctx, format, key, entry, 1));
      continue;
    }
    const id = codec.keyIdOfLedgerKey(key);
    const e: Entry | undefined = id === undefined ? undefined : ledger.get(id);
    if (!e || isExpiredTemporary(e, seq)) continue;
    // an archived entry is still answered, with stellar-rpc's placeholder live-until ledger 0 (stellar-core's
    // query server does not say when it was archived: internal/ledgerentries/main.go)
    const live = isArchived(e, seq) ? 0 : liveUntilOf(e);
    entries.push(answer(ctx, format, key, codec.entryXdr(e).data, e.lm, live));
  }
  return { entries, latestLedger: seq };
}

function answer(
  ctx: RpcContext,
  format: string,
  key: xdr.LedgerKey,
  entryData: xdr.LedgerEntryData,
  lastModified: number,
  live?: number,
): object {
  const data = xdrBase64(entryData);
  const keyB64 = xdrBase64(key);
  return {
    ...(format === 'json'
      ? { keyJson: ctx.json.toJson('LedgerKey', keyB64), dataJson: ctx.json.toJson('LedgerEntryData', data) }
      : { key: keyB64, xdr: data }),
    lastModifiedLedgerSeq: lastModified,
    ...(live !== undefined ? { liveUntilLedgerSeq: live } : {}),
  };
}

/**
 * CONFIG_SETTING_STATE_ARCHIVAL: the network's TTLs (maxEntryTTL, minTemporaryTTL, minPersistentTTL, the
 * simulator's settings); the fields of rent and eviction, which the simulator does not model, are 0. Any other
 * configuration entry is not answered.
 */
function configSettingEntry(ctx: RpcContext, key: xdr.LedgerKey): xdr.LedgerEntryData | undefined {
  if (key.type !== 'configSetting' || key.configSetting.configSettingId.name !== 'configSettingStateArchival')
    return undefined;
  const ttl = ctx.ledger.ttl;
  return xdr.LedgerEntryData.configSetting(
    xdr.ConfigSettingEntry.configSettingStateArchival(
      new xdr.StateArchivalSettings({
        maxEntryTtl: ttl.maxEntryTTL,
        minTemporaryTtl: ttl.minTemporaryTTL,
        minPersistentTtl: ttl.minPersistentTTL,
        persistentRentRateDenominator: 0n,
        tempRentRateDenominator: 0n,
        maxEntriesToArchive: 0,
        liveSorobanStateSizeWindowSampleSize: 0,
        liveSorobanStateSizeWindowSamplePeriod: 0,
        evictionScanSize: 0,
        startingEvictionScanLevel: 0,
      }),
    ),
  );
}
