// Settings a person can trust: an RPC URL's userinfo and query (a password, a provider's API key) appear in no
// answer, log line, metric, banner or start error; a busy port names the service, the address and the setting.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/index.ts';
import { loadConfig } from './config/index.ts';
import { startServices } from './services.ts';

let sim: Awaited<ReturnType<typeof startSimulator>>;
const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-settings-'));
/** The RPC in front of the simulator: forwards, or answers every request with a redirect whose URL carries secrets. */
let rpc: { server: Server; port: number; redirect: boolean };

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  const state = { redirect: false };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.redirect) {
        res.writeHead(302, { location: 'http://relay:RELAYSECRET@elsewhere.example/rpc?apikey=RELAYKEY' }).end();
        return;
      }
      const url = new URL(req.url ?? '/', 'http://x');
      fetch(`${sim.url}${url.pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      }).then(
        async (up) =>
          res.writeHead(up.status, { 'content-type': 'application/json' }).end(Buffer.from(await up.arrayBuffer())),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rpc = Object.assign(state, { server, port: (server.address() as AddressInfo).port });
});
afterAll(async () => {
  await new Promise((r) => rpc.server.close(r));
  await sim.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What a failed listen says about `service` on PORT, and which setting moves it. */
const busyLine = (service: string, setting: string) =>
  `${service} cannot listen on 127.0.0.1:PORT: another process uses that port; ` +
  `stop it, or set ${setting} to a free port (0 picks one)`;

const SECRETS = /SECRET|APIKEY|KEYVALUE/;
const secretUrl = () => `http://user:SECRET@127.0.0.1:${rpc.port}/testnet/rpc?apikey=KEYVALUE&x=1`;
const argsFor = (rpcUrl: string, passphrase = sim.networks.testnet.passphrase) => {
  const t = sim.networks.testnet;
  return [
    '--simulator',
    'false',
    '--network',
    'testnet',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--testnet-rpc-url',
    rpcUrl,
    '--testnet-passphrase',
    passphrase,
    '--testnet-factory-id',
    t.factoryId,
    '--testnet-registry-id',
    t.registryId,
    '--testnet-vault-wasm-hash',
    t.vaultWasmHash,
    '--testnet-simulation-account',
    t.admin.publicKey,
  ];
};

describe('an RPC URL with userinfo and a query', () => {
  it('GET /config publishes it without them; no banner, log line, metric or error answer carries them', async () => {
    rpc.redirect = false;
    const lines: string[] = [];
    const running = await startServices(loadConfig(argsFor(secretUrl()), {}).config, {
      mode: 'serve',
      logWrite: (l) => lines.push(l),
    });
    try {
      const base = running.vault.testnet!.url;
      const config = await (await fetch(`${base}/config`)).text();
      expect(JSON.parse(config).rpcUrl).toBe(`http://127.0.0.1:${rpc.port}/testnet/rpc`);
      expect(config).not.toMatch(SECRETS);
      expect(running.describe().join('\n')).not.toMatch(SECRETS);

      const { key } = await running.stores.keys.create({
        walletAddress: null,
        network: 'testnet',
        role: 'admin',
        scopes: [],
        expiresAt: null,
      });
      const owner = Keypair.random().publicKey();
      const read = () => fetch(`${base}/contracts/vault/vc-count?owner=${owner}`, { headers: { 'X-SVC-Key': key } });
      expect((await read()).status).toBe(404); // through the RPC, which works
      rpc.redirect = true;
      const failed = await read();
      const body = await failed.text();
      expect([failed.status, JSON.parse(body).error]).toEqual([502, 'chain_unavailable']);
      expect(body).toMatch(/redirect \(302\) to http:\/\/elsewhere\.example\/rpc/);
      expect(body).not.toMatch(/RELAYSECRET|RELAYKEY/);
      expect(await (await fetch(`${base}/ready`)).text()).not.toMatch(SECRETS);
      expect(await (await fetch(`${base}/metrics`)).text()).not.toMatch(/SECRET|RELAYKEY|KEYVALUE/);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toMatch(/SECRET|RELAYKEY|KEYVALUE/);
    } finally {
      rpc.redirect = false;
      await running.close();
    }
  });

  it('GET /config publishes the public RPC URL instead when one is set (a key in the path stays private)', async () => {
    const public_ = 'https://rpc.example.org/soroban/testnet';
    const args = [...argsFor(`http://127.0.0.1:${rpc.port}/testnet/rpc`), '--testnet-public-rpc-url', public_];
    const running = await startServices(loadConfig(args, {}).config, { mode: 'serve', logWrite: () => undefined });
    try {
      const config = (await (await fetch(`${running.vault.testnet!.url}/config`)).json()) as { rpcUrl: string };
      expect(config.rpcUrl).toBe(public_);
    } finally {
      await running.close();
    }
  });

  it('a start refused for that RPC names it without them', async () => {
    const wrong = startServices(loadConfig(argsFor(secretUrl(), 'Some Other Network ; 2026'), {}).config, {
      mode: 'serve',
    });
    await expect(wrong).rejects.toThrow(
      `refusing to start: the testnet RPC at http://127.0.0.1:${rpc.port}/testnet/rpc serves the network`,
    );
    rpc.redirect = true;
    try {
      const refused = await startServices(loadConfig(argsFor(secretUrl()), {}).config, { mode: 'serve' }).then(
        () => 'started',
        (e: Error) => e.message,
      );
      expect(refused).toMatch(/the RPC answered a redirect \(302\) to http:\/\/elsewhere\.example\/rpc/);
      expect(refused).not.toMatch(/SECRET|RELAYKEY|KEYVALUE/);
    } finally {
      rpc.redirect = false;
    }
  });
});

describe('a busy port', () => {
  const busy = async (): Promise<{ port: number; close: () => Promise<void> }> => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return { port: (s.address() as AddressInfo).port, close: () => new Promise((r) => s.close(() => r())) };
  };

  it.each([
    {
      flag: '--port',
      mode: 'serve' as const,
      want: busyLine('the testnet vault API', 'CV_PORT (--port)'),
    },
    {
      flag: '--resolver-port',
      mode: 'resolver' as const,
      want: busyLine('the DID resolver', 'CV_RESOLVER_PORT (--resolver-port)'),
    },
  ])('$flag under $mode names the service, the address and the setting', async ({ flag, mode, want }) => {
    const taken = await busy();
    try {
      const args = [
        ...argsFor(`http://127.0.0.1:${rpc.port}/testnet/rpc`),
        '--resolver-networks',
        'testnet',
        '--resolver-port',
        '0',
        flag,
        String(taken.port),
      ];
      await expect(startServices(loadConfig(args, {}).config, { mode })).rejects.toThrow(
        want.replace('PORT', String(taken.port)),
      );
    } finally {
      await taken.close();
    }
  });

  it.each([
    {
      flag: '--simulator-port',
      want: busyLine('the chain simulator', 'CV_SIMULATOR_PORT (--simulator-port)'),
    },
    {
      flag: '--mainnet-port',
      want: busyLine('the mainnet vault API', 'CV_MAINNET_PORT (--mainnet-port)'),
    },
  ])('$flag under start names the service, the address and the setting', async ({ flag, want }) => {
    const taken = await busy();
    const dir = mkdtempSync(path.join(tmpdir(), 'cv-busy-'));
    try {
      const ports = ['--testnet-port', '--mainnet-port', '--resolver-port', '--simulator-port'].flatMap((f) => [
        f,
        f === flag ? String(taken.port) : '0',
      ]);
      const config = loadConfig([...ports, '--data-dir', dir, '--log-level', 'silent'], {}).config;
      await expect(startServices(config, { mode: 'start' })).rejects.toThrow(want.replace('PORT', String(taken.port)));
    } finally {
      await taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
