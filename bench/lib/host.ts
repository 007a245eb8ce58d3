// A child process that runs one thing under test, so the load generator (the parent) and the server never
// share an event loop: `bare`, `express`, `simulator` (the RPC simulator plus fixture commands), `services`
// (vault API and resolver against a simulator given by URL). Talks to the parent over the IPC channel:
// one `ready` message, then `call` → `reply`. Started by bench/lib/child.ts.
import { Keypair } from '@stellar/stellar-sdk';
import type { HostReady, HostSpec, Reply, Call } from './child.ts';

type Handler = (args: Record<string, unknown>) => Promise<unknown> | unknown;

const send = (msg: HostReady | Reply): void => {
  process.send?.(msg);
};

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

async function startBare(): Promise<{ ready: unknown; handlers: Record<string, Handler> }> {
  const { startBareServer } = await import('./servers.ts');
  const s = await startBareServer();
  return { ready: { url: s.url }, handlers: { close: () => s.close() } };
}

async function startExpress(): Promise<{ ready: unknown; handlers: Record<string, Handler> }> {
  const { startExpressCeiling } = await import('./servers.ts');
  const s = await startExpressCeiling();
  return { ready: { url: s.url }, handlers: { close: () => s.close() } };
}

async function startSim(): Promise<{ ready: unknown; handlers: Record<string, Handler> }> {
  const { startSimulator } = await import('../../simulator/index.ts');
  const f = await import('./chain-fixtures.ts');
  const running = await startSimulator({ port: 0, host: '127.0.0.1' });
  const net = running.sim.network('testnet');
  // JSON-RPC calls the testnet endpoint answered, by method (the services' chain traffic, for the cycle section).
  const rpcCalls: Record<string, number> = {};
  const answer = net.rpc;
  Object.assign(net, {
    rpc: (method: string, params?: unknown) => {
      rpcCalls[method] = (rpcCalls[method] ?? 0) + 1;
      return answer(method, params);
    },
  });
  const issuers = new Map<string, import('./chain-fixtures.ts').Issuer>();
  return {
    ready: { url: running.url, networks: running.networks },
    handlers: {
      /** A funded issuer account with a registered DID. */
      issuer: () => {
        const i = f.issuer(net);
        issuers.set(i.keypair.publicKey(), i);
        return { secret: i.keypair.secret(), publicKey: i.keypair.publicKey(), did: i.did };
      },
      /** A funded owner with a deployed canonical vault. */
      owner: () => {
        const kp = f.fundedAccount(net);
        const vault = f.deployVault(net, kp, `did:ledger:testnet:${'a'.repeat(26)}`);
        return { secret: kp.secret(), publicKey: kp.publicKey(), vault };
      },
      /** CPU time (user + system, µs) this process has used so far. */
      cpu: () => {
        const u = process.cpuUsage();
        return { us: u.user + u.system };
      },
      /** JSON-RPC calls answered so far on testnet, by method. */
      rpcCalls: () => ({ ...rpcCalls }),
      fill: (a) => {
        const iss = issuers.get(String(a.issuer));
        if (!iss) throw new Error(`unknown issuer ${String(a.issuer)}: create it with the issuer command`);
        return f.fillVault(net, {
          vault: String(a.vault),
          issuer: iss,
          count: Number(a.count),
          prefix: String(a.prefix),
          maxMs: Number(a.maxMs ?? 600_000),
        });
      },
      close: () => running.close(),
    },
  };
}

interface ServicesArgs {
  /** Flags of the vault API process (`serve`). */
  vaultArgv?: string[];
  /** Flags of the resolver process (`resolver`). */
  resolverArgv?: string[];
}

/** The vault API and the resolver exactly as `credential-vault serve` / `resolver` start them. */
async function startServicesHost(spec: ServicesArgs): Promise<{ ready: unknown; handlers: Record<string, Handler> }> {
  const { loadConfig } = await import('../../src/config/index.ts');
  const { startServices } = await import('../../src/services.ts');
  type Running = Awaited<ReturnType<typeof startServices>>;
  let vault: Running | undefined;
  let resolver: Running | undefined;
  const ready: Record<string, unknown> = {};
  if (spec.vaultArgv) {
    try {
      vault = await startServices(loadConfig(spec.vaultArgv, {}).config, { mode: 'serve' });
      ready.vault = { url: Object.values(vault.vault)[0]?.url };
    } catch (e) {
      ready.vault = { error: `vault API did not start: ${errorText(e)}` };
    }
  }
  if (spec.resolverArgv) {
    try {
      resolver = await startServices(loadConfig(spec.resolverArgv, {}).config, { mode: 'resolver' });
      ready.resolver = { url: resolver.resolverUrl };
    } catch (e) {
      ready.resolver = { error: `resolver did not start: ${errorText(e)}` };
    }
  }
  return {
    ready,
    handlers: {
      createKey: async (a) => {
        if (!vault) throw new Error('the vault API is not running');
        const wallet = a.wallet === undefined ? null : String(a.wallet);
        if (wallet !== null) Keypair.fromPublicKey(wallet);
        const created = await vault.stores.keys.create({
          walletAddress: wallet,
          network: 'testnet',
          role: (a.role as 'standard' | 'early' | 'admin' | undefined) ?? 'standard',
          scopes: [],
          expiresAt: null,
        });
        return { key: created.key, keyId: created.record.keyId };
      },
      /** CPU time (user + system, µs) this process has used so far. */
      cpu: async () => {
        const u = process.cpuUsage();
        return { us: u.user + u.system };
      },
      close: async () => {
        await vault?.close();
        await resolver?.close();
      },
    },
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(Buffer.from(process.argv[2] ?? '', 'base64').toString('utf8')) as HostSpec;
  let handlers: Record<string, Handler> = {};
  try {
    const started =
      spec.kind === 'bare'
        ? await startBare()
        : spec.kind === 'express'
          ? await startExpress()
          : spec.kind === 'simulator'
            ? await startSim()
            : await startServicesHost(spec.args as ServicesArgs);
    handlers = started.handlers;
    send({ type: 'ready', ok: true, result: started.ready });
  } catch (e) {
    send({ type: 'ready', ok: false, error: errorText(e) });
    process.exitCode = 1;
    process.disconnect?.();
    return;
  }
  handlers.rss = () => process.memoryUsage().rss;
  process.on('message', (msg: Call) => {
    if (msg?.type !== 'call') return;
    const h = handlers[msg.cmd];
    void (async () => {
      try {
        if (!h) throw new Error(`unknown command ${msg.cmd}`);
        send({ type: 'reply', id: msg.id, ok: true, result: await h(msg.args ?? {}) });
      } catch (e) {
        send({ type: 'reply', id: msg.id, ok: false, error: errorText(e) });
      }
    })();
  });
  // The parent going away ends the host, whatever state it is in.
  process.on('disconnect', () => {
    void Promise.resolve(handlers.close?.({})).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}

await main();
