// `credential-vault keys create`: a wallet is an account address with a valid checksum,
// else the command refuses it before any key is made.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from './cli.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'cv-cli-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dataDir, { recursive: true, force: true });
});

describe('keys create --wallet', () => {
  it.each([
    ['G + 55×A (bad checksum)', `G${'A'.repeat(55)}`],
    ['a real address with its last character changed', 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJS'],
    ['a contract id', 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ'],
  ])('%s → usage error, no key', async (_name, wallet) => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errors.push(String(line)));
    const code = await main(['keys', 'create', '--network', 'testnet', '--wallet', wallet, '--data-dir', dataDir]);
    expect(code).toBe(2);
    expect(errors.join('\n')).toMatch(/--wallet must be an account address G… with a valid checksum/);
    expect((await readdir(dataDir)).filter((f) => /key/i.test(f))).toEqual([]);
  });

  it('a valid address gets its key', async () => {
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
    const code = await main([
      'keys',
      'create',
      '--network',
      'testnet',
      '--wallet',
      'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
      '--data-dir',
      dataDir,
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({
      key: expect.stringMatching(/^[0-9a-f]{64}$/),
      wallet_address: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
    });
  });
});
