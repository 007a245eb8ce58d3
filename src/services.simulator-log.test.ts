// Under `start`, the embedded simulator's failures are log lines like every other: JSON naming their service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { loadConfig } from './config/index.ts';
import { startServices } from './services.ts';

// The simulator as it is, with the close-failure callback the services hand it kept for the test.
const handed = vi.hoisted(() => ({ onCloseError: undefined as ((err: unknown) => void) | undefined }));
vi.mock('../simulator/index.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../simulator/index.ts')>();
  return {
    ...original,
    startSimulator: (opts: Parameters<typeof original.startSimulator>[0]) => {
      handed.onCloseError = opts?.onCloseError;
      return original.startSimulator(opts);
    },
  };
});

const dir = mkdtempSync(path.join(tmpdir(), 'cv-sim-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('logs a failed ledger close of the embedded simulator as a JSON line with service "simulator"', async () => {
  const args = ['--testnet-port', '0', '--mainnet-port', '0', '--resolver-port', '0', '--simulator-port', '0'];
  const { config } = loadConfig([...args, '--data-dir', dir, '--log-level', 'error'], {});
  const lines: string[] = [];
  const running = await startServices(config, { mode: 'start', logWrite: (l) => lines.push(l) });
  try {
    expect(handed.onCloseError, 'the services give the simulator a close-failure callback').toBeTypeOf('function');
    handed.onCloseError!(new Error('state file not writable'));
    const line = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'error', service: 'simulator', msg: 'ledger close failed' });
    expect(line['error']).toMatchObject({ message: 'state file not writable' });
  } finally {
    await running.close();
  }
});
