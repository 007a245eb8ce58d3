// startServices: the real-network path (simulator off) checks the RPC's passphrase before serving.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/index.ts';
import { loadConfig } from './config/index.ts';
import { startServices } from './services.ts';
import { TEST_LOG_ARGS } from '../test-support/log-level.ts';

let sim: Awaited<ReturnType<typeof startSimulator>>;
const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-services-'));

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const argsFor = (passphrase: string) => {
  const t = sim.networks.testnet;
  return [
    '--simulator',
    'false',
    '--network',
    'testnet',
    '--port',
    '0',
    '--data-dir',
    // One directory per start: a start left running by a failed test must not lock the next test out.
    mkdtempSync(path.join(dataDir, 'run-')),
    '--testnet-rpc-url',
    t.rpcUrl!,
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

describe('startServices against a configured network profile', () => {
  it('refuses to start when the RPC serves another passphrase', async () => {
    const { config } = loadConfig([...argsFor('Some Other Network ; 2026'), ...TEST_LOG_ARGS], {});
    await expect(startServices(config, { mode: 'serve' })).rejects.toThrow(
      /refusing to start: the testnet RPC .* serves the network "Credential Vault Simulator Testnet ; 2026"/,
    );
  });

  it('an RPC URL that answers 404: the refusal names the URL and the setting, not only the library', async () => {
    const notRpc = createServer((_req, res) => {
      res.statusCode = 404;
      res.end('not found');
    });
    await new Promise<void>((r) => notRpc.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(notRpc.address() as AddressInfo).port}/wrong`;
    try {
      const args = argsFor(sim.networks.testnet.passphrase).map((a) => (a === sim.networks.testnet.rpcUrl ? url : a));
      const { config } = loadConfig([...args, ...TEST_LOG_ARGS], {});
      await expect(startServices(config, { mode: 'serve' })).rejects.toThrow(
        `refusing to start: the testnet RPC at ${url} did not answer getNetwork (`,
      );
      // The URL and the setting once each, and the status in words (issue 26).
      await expect(startServices(config, { mode: 'serve' })).rejects.toThrow(
        new Error(
          `refusing to start: the testnet RPC at ${url} did not answer getNetwork (HTTP 404); ` +
            'check that it is a Soroban RPC endpoint, or set CV_TESTNET_RPC_URL (--testnet-rpc-url)',
        ),
      );
    } finally {
      await new Promise((r) => notRpc.close(r));
    }
  });

  it('refuses to start, in one line naming both versions, when the RPC runs a protocol older than 26', async () => {
    // an RPC that answers getNetwork as a Protocol 25 node of the right network would
    const old = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            result: { passphrase: sim.networks.testnet.passphrase, protocolVersion: 25 },
          }),
        );
      });
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}/rpc`;
    try {
      const args = argsFor(sim.networks.testnet.passphrase).map((a) => (a === sim.networks.testnet.rpcUrl ? url : a));
      const { config } = loadConfig([...args, ...TEST_LOG_ARGS], {});
      const refused = startServices(config, { mode: 'serve' });
      await expect(refused).rejects.toThrow(
        new RegExp(
          `^refusing to start: the testnet RPC at ${url} runs Protocol 25, older than Protocol 26, ` +
            'the oldest this service supports \\(26\\.\\.28\\)$',
        ),
      );
    } finally {
      await new Promise((r) => old.close(r));
    }
  });

  it.each([26, 28])('starts against a Protocol %i network and shows it in /config', async (protocol) => {
    const at = await startSimulator({ port: 0, protocol });
    try {
      const t = at.networks.testnet;
      const args = argsFor(t.passphrase).map((a) =>
        a === sim.networks.testnet.rpcUrl
          ? t.rpcUrl!
          : a === sim.networks.testnet.factoryId
            ? t.factoryId
            : a === sim.networks.testnet.registryId
              ? t.registryId
              : a,
      );
      const running = await startServices(loadConfig([...args, ...TEST_LOG_ARGS], {}).config, { mode: 'serve' });
      try {
        const body = (await (await fetch(`${running.vault.testnet!.url}/config`)).json()) as Record<string, unknown>;
        expect(body.protocolVersion).toBe(protocol);
      } finally {
        await running.close();
      }
    } finally {
      await at.close();
    }
  });

  it('refuses to start with a clear line per missing profile field', async () => {
    const args = ['--simulator', 'false', '--network', 'mainnet', '--data-dir', dataDir, ...TEST_LOG_ARGS];
    const { config } = loadConfig(args, {});
    await expect(startServices(config, { mode: 'serve' })).rejects.toThrow(
      /CV_MAINNET_RPC_URL[\s\S]*CV_MAINNET_FACTORY_ID/,
    );
  });

  it('refuses to start the embedded simulator when a network profile setting would be ignored', async () => {
    const args = ['--network', 'testnet', '--port', '0', '--simulator-port', '0', '--data-dir', dataDir];
    args.push(...TEST_LOG_ARGS);
    const { config } = loadConfig(args, { CV_TESTNET_RPC_URL: 'https://rpc.example/' });
    await expect(startServices(config, { mode: 'start' })).rejects.toThrow(
      /CV_TESTNET_RPC_URL \(--testnet-rpc-url\): the embedded simulator replaces the testnet network profile/,
    );
  });

  it('serves the profile it was given when the passphrase matches', async () => {
    const { config } = loadConfig([...argsFor(sim.networks.testnet.passphrase), ...TEST_LOG_ARGS], {});
    const running = await startServices(config, { mode: 'serve' });
    try {
      const res = await fetch(`${running.vault.testnet!.url}/config`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.factoryContractId).toBe(sim.networks.testnet.factoryId);
      expect(body.svcContractId).toBe(sim.networks.testnet.factoryId);
      expect(body.networkPassphrase).toBe(sim.networks.testnet.passphrase);
      expect(body.protocolVersion).toBe(28);
    } finally {
      await running.close();
    }
  });
});

describe('CV_TRUST_PROXY reaches both apps', () => {
  const both = () => {
    const args = argsFor(sim.networks.testnet.passphrase);
    const m = sim.networks.mainnet;
    return [
      ...args,
      '--resolver-port',
      '0',
      '--resolver-rate-limit',
      '1',
      '--mainnet-rpc-url',
      m.rpcUrl!,
      '--mainnet-passphrase',
      m.passphrase,
      '--mainnet-factory-id',
      m.factoryId,
      '--mainnet-registry-id',
      m.registryId,
      '--mainnet-vault-wasm-hash',
      m.vaultWasmHash,
      '--mainnet-simulation-account',
      m.admin.publicKey,
    ];
  };
  const from = (url: string, ip: string) => fetch(url, { headers: { 'x-forwarded-for': ip } });

  it.each([
    { given: [] as string[], want: { vault: ['59', '58'], resolver: [200, 429] } },
    { given: ['--trust-proxy', 'loopback'], want: { vault: ['59', '59'], resolver: [200, 200] } },
  ])(
    '$given: two forwarded clients → vault /auth/* remaining $want.vault, resolver $want.resolver',
    async ({ given, want }) => {
      const { config } = loadConfig([...both(), ...given, ...TEST_LOG_ARGS], {});
      const vault = await startServices(config, { mode: 'serve' });
      const resolver = await startServices(config, { mode: 'resolver' });
      try {
        const challenge = `${vault.vault.testnet!.url}/auth/challenge?account=${sim.networks.testnet.admin.publicKey}`;
        const remaining = [];
        for (const ip of ['203.0.113.1', '203.0.113.2'])
          remaining.push((await from(challenge, ip)).headers.get('x-ratelimit-remaining'));
        const statuses = [];
        for (const ip of ['203.0.113.1', '203.0.113.2'])
          statuses.push((await from(`${resolver.resolverUrl!}/health`, ip)).status);
        expect({ vault: remaining, resolver: statuses }).toEqual(want);
      } finally {
        await vault.close();
        await resolver.close();
      }
    },
  );
});

describe('the HTTP servers of serve()', () => {
  const both = (...extra: string[]) => {
    const m = sim.networks.mainnet;
    return [
      ...argsFor(sim.networks.testnet.passphrase),
      '--resolver-port',
      '0',
      '--mainnet-rpc-url',
      m.rpcUrl!,
      '--mainnet-passphrase',
      m.passphrase,
      '--mainnet-factory-id',
      m.factoryId,
      '--mainnet-registry-id',
      m.registryId,
      '--mainnet-vault-wasm-hash',
      m.vaultWasmHash,
      '--mainnet-simulation-account',
      m.admin.publicKey,
      ...extra,
    ];
  };

  it("answer a request head over the limit 431 in each service's envelope, and HEAD on /health", async () => {
    const { config } = loadConfig([...both(), ...TEST_LOG_ARGS], {});
    const vault = await startServices(config, { mode: 'serve' });
    const resolver = await startServices(config, { mode: 'resolver' });
    try {
      const long = `/health?q=${'a'.repeat(20_000)}`;
      const v = await fetch(vault.vault.testnet!.url + long);
      expect([v.status, await v.json()]).toEqual([431, { error: 'headers_too_large', message: expect.any(String) }]);
      const r = await fetch(resolver.resolverUrl! + long);
      expect([r.status, await r.json()]).toEqual([431, { code: 'headers_too_large', message: expect.any(String) }]);
      for (const url of [vault.vault.testnet!.url, resolver.resolverUrl!]) {
        const head = await fetch(`${url}/health`, { method: 'HEAD' });
        expect([head.status, await head.text()], url).toEqual([200, '']);
      }
    } finally {
      await vault.close();
      await resolver.close();
    }
  });

  it('CV_LEGACY_BASE_PATHS reaches the vault API', async () => {
    const { config } = loadConfig([...both(), ...TEST_LOG_ARGS], { CV_LEGACY_BASE_PATHS: '/legacy' });
    const vault = await startServices(config, { mode: 'serve' });
    try {
      const url = vault.vault.testnet!.url;
      const legacy = await fetch(`${url}/legacy/config`);
      expect([legacy.status, legacy.headers.get('deprecation'), legacy.headers.get('link')]).toEqual([
        200,
        '@1795305600',
        '</config>; rel="successor-version"',
      ]);
      expect((await fetch(`${url}/api/config`)).status).toBe(404);
    } finally {
      await vault.close();
    }
  });
});
