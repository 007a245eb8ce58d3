// getLedgerEntries of CONFIG_SETTING_STATE_ARCHIVAL (docs/chain-abi.md "State archival"): the network's TTLs as
// stellar-rpc answers a configuration entry, so a client learns the maximum TTL an extension may ask for. Other
// configuration entries are not answered.
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { clock, testNetwork } from './testing.ts';

const key = (id: xdr.ConfigSettingId) =>
  xdr.LedgerKey.configSetting(new xdr.LedgerKeyConfigSetting({ configSettingId: id })).toXdr('base64');

type Answer = { entries: { key?: string; xdr?: string; dataJson?: unknown; liveUntilLedgerSeq?: number }[] };

describe('getLedgerEntries: the state archival settings', () => {
  it.each([
    { name: "Protocol 28's by default", ttl: undefined, want: [3_110_400, 17_280, 2_073_600] },
    {
      name: 'the configured ones',
      ttl: { minPersistentTTL: 40, minTemporaryTTL: 10, maxEntryTTL: 400 },
      want: [400, 10, 40],
    },
  ])('answers $name', async ({ ttl, want }) => {
    const net = testNetwork({ now: clock().now, ...(ttl ? { ttl } : {}) });
    const asked = key(xdr.ConfigSettingId.configSettingStateArchival);
    const res = (await net.rpc('getLedgerEntries', { keys: [asked] })) as Answer;
    expect(res.entries).toHaveLength(1);
    const [entry] = res.entries;
    expect(entry!.key).toBe(asked);
    expect(entry!.liveUntilLedgerSeq).toBeUndefined(); // configuration entries have no TTL
    const data = xdr.LedgerEntryData.fromXdr(entry!.xdr!, 'base64');
    if (data.type !== 'configSetting' || data.configSetting.type !== 'configSettingStateArchival')
      throw new Error(`not the state archival settings: ${data.type}`);
    const s = data.configSetting.stateArchivalSettings;
    expect([s.maxEntryTtl, s.minTemporaryTtl, s.minPersistentTtl]).toEqual(want);
  });

  it('answers no other configuration entry, and the JSON format too', async () => {
    const net = testNetwork({ now: clock().now });
    const other = await net.rpc('getLedgerEntries', {
      keys: [key(xdr.ConfigSettingId.configSettingContractComputeV0)],
    });
    expect((other as Answer).entries).toEqual([]);
    const json = (await net.rpc('getLedgerEntries', {
      keys: [key(xdr.ConfigSettingId.configSettingStateArchival)],
      xdrFormat: 'json',
    })) as Answer;
    expect(JSON.stringify(json.entries[0]!.dataJson)).toContain('3110400');
  });
});
