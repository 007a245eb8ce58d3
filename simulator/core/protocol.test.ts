// The protocol a simulated network runs: 28 by default (the networks' own), 26..28 on request, reported wherever a
// node reports it
// (getNetwork, getVersionInfo, getLatestLedger, the ledger header and the LedgerCloseMeta version core emits).
import { xdr } from '@stellar/stellar-sdk';
import { describe, expect, it, vi } from 'vitest';
import { SIMULATOR_PROTOCOLS } from '../../src/config/index.ts';
import { runSimulator } from '../cli.ts';
import { MAX_PROTOCOL, MIN_PROTOCOL, PROTOCOL_VERSION, parseProtocol } from './ledger.ts';
import { testNetwork } from './testing.ts';

async function reported(protocol?: number) {
  const net = testNetwork({ protocol });
  const network = (await net.rpc('getNetwork')) as { protocolVersion: number };
  const version = (await net.rpc('getVersionInfo')) as { protocolVersion: number };
  const latest = (await net.rpc('getLatestLedger')) as {
    protocolVersion: number;
    sequence: number;
    headerXdr: string;
    metadataXdr: string;
  };
  const header = xdr.LedgerHeader.fromXdr(latest.headerXdr, 'base64');
  const meta = xdr.LedgerCloseMeta.fromXdr(latest.metadataXdr, 'base64');
  return { network, version, latest, header, meta };
}

describe('simulator protocol', () => {
  it('runs Protocol 28 by default and reports it everywhere, with LedgerCloseMetaV2', async () => {
    expect(PROTOCOL_VERSION).toBe(28);
    const r = await reported();
    expect(r.network.protocolVersion).toBe(28);
    expect(r.version.protocolVersion).toBe(28);
    expect(r.latest.protocolVersion).toBe(28);
    expect(r.header.ledgerVersion).toBe(28);
    expect(r.header.ledgerSeq).toBe(r.latest.sequence);
    const v2 = xdr.expectUnionVariant(r.meta, 'v2').v2;
    expect(v2.ledgerHeader.header.ledgerVersion).toBe(28);
    expect(xdr.expectUnionVariant(v2.txSet, 'v1TxSet').v1TxSet.phases.map((p) => p.type)).toEqual([
      'v0Components',
      'parallelTxsComponent',
    ]);
  });

  it.each([26, 27])('emulates Protocol %i when asked', async (p) => {
    const r = await reported(p);
    expect([
      r.network.protocolVersion,
      r.version.protocolVersion,
      r.latest.protocolVersion,
      r.header.ledgerVersion,
    ]).toEqual([p, p, p, p]);
    expect(r.meta.type).toBe('v2'); // v2 since Protocol 23
  });

  it('refuses protocols it does not emulate with one line; one newer than 28 does not exist', () => {
    for (const bad of ['25', 'abc', '', '27.5', '-1']) {
      expect(() => parseProtocol(bad)).toThrow(/^protocol must be 26 to 28, got /);
    }
    for (const bad of ['29', '30', 29]) {
      expect(() => parseProtocol(bad)).toThrow(/^there is no Protocol (29|30): the newest released protocol is 28/);
    }
    expect(() => testNetwork({ protocol: 23 })).toThrow('protocol must be 26 to 28, got "23"');
    expect(() => testNetwork({ protocol: 29 })).toThrow('there is no Protocol 29');
    expect(parseProtocol(' 27 ')).toBe(27);
  });

  it('the CLI refuses --protocol 29 and CV_SIMULATOR_PROTOCOL=29 with one line, before serving', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const noProtocol29 =
      'there is no Protocol 29: the newest released protocol is 28, which the networks run ' +
      '(the simulator emulates 26 to 28)';
    try {
      expect(await runSimulator(['--protocol', '29'])).toBe(2);
      expect(err.mock.calls.at(-1)).toEqual([`--protocol: ${noProtocol29}`]);
      expect(await runSimulator(['--protocol=29'])).toBe(2);
      expect(err.mock.calls.at(-1)).toEqual([`--protocol: ${noProtocol29}`]);
      expect(await runSimulator(['--port', '0'], () => undefined, { protocol: '29' })).toBe(2);
      expect(err.mock.calls.at(-1)).toEqual([`CV_SIMULATOR_PROTOCOL: ${noProtocol29}`]);
      expect(await runSimulator(['--port', '0'], () => undefined, { protocol: '24' })).toBe(2);
      expect(err.mock.calls.at(-1)).toEqual(['CV_SIMULATOR_PROTOCOL: protocol must be 26 to 28, got "24"']);
      for (const call of err.mock.calls) expect(String(call[0])).not.toContain('\n');
    } finally {
      err.mockRestore();
    }
  });

  it('src/config accepts the same range the simulator emulates', () => {
    expect(SIMULATOR_PROTOCOLS).toEqual({ min: MIN_PROTOCOL, max: MAX_PROTOCOL });
  });
});
