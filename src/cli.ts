// `credential-vault <command>`: start | serve | resolver | simulator | keys | help.
import { API_KEY_SCOPES, KEY_ROLES } from './stores/types.ts';
import { ConfigError, loadConfig, readSettings, settingsTable, type Role, NETWORKS, type NetworkName } from './config/index.ts';

const USAGE = `usage: credential-vault <command> [flags]

commands:
  start       embedded default: chain simulator (8000), vault API testnet (3000) and mainnet (3002),
              DID resolver (3001), data in ./data
  serve       one vault API for one network (--network testnet|mainnet, --port)
  resolver    the DID resolver alone (--resolver-port)
  simulator   the chain simulator alone: [--port 8000] [--host 127.0.0.1] [--state-file F] [--protocol 26..29]
  keys        API keys: create --network N --wallet G… [--role standard|early|admin] [--scopes a,b] [--expires-in-days D]
                        list [--network N] | revoke <keyId>
  help        this text and every setting

Every setting below is an environment variable and a flag; flags win.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'start':
      case 'serve':
      case 'resolver': {
        const { config } = loadConfig(args);
        const { startServices } = await import('./services.ts');
        // From the first SIGTERM/SIGINT on, /ready answers 503 so load balancers stop sending, while the
        // servers let the requests under way finish (up to --shutdown-timeout-ms). A second signal kills.
        let shuttingDown = false;
        const running = await startServices(config, { mode: command, draining: () => shuttingDown });
        for (const line of running.describe()) console.log(line);
        await waitForSignal();
        shuttingDown = true;
        await running.close();
        return 0;
      }
      case 'simulator': {
        const { runSimulator } = await import('../simulator/cli.ts');
        // CV_SIMULATOR_PROTOCOL is read here (src/config reads the environment); --protocol wins.
        return await runSimulator(args, undefined, { protocol: readSettings([]).raw.simulatorProtocol });
      }
      case 'keys':
        return await keysCommand(args);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(`${USAGE}\n\n${settingsTable()}`);
        return command === undefined ? 2 : 0;
      default:
        console.error(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

class UsageError extends Error {}

/** Resolves on the first SIGINT or SIGTERM; both handlers are then removed, so a second signal kills. */
function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

function takeFlag(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const [flag] = args.splice(i, 1) as [string];
  if (flag.includes('=')) return flag.slice(flag.indexOf('=') + 1);
  const v = args.splice(i, 1)[0];
  if (v === undefined) throw new UsageError(`${name} needs a value`);
  return v;
}

const ROLES: readonly Role[] = KEY_ROLES;
const SCOPES: readonly string[] = API_KEY_SCOPES;

async function keysCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const args = [...rest];
  const network = takeFlag(args, '--network') as NetworkName | undefined;
  const wallet = takeFlag(args, '--wallet');
  const role = (takeFlag(args, '--role') ?? 'standard') as Role;
  const scopes = takeFlag(args, '--scopes');
  const expiresInDays = takeFlag(args, '--expires-in-days');
  const { config, rest: positional } = loadConfig(args);
  const { createStores } = await import('./stores/index.ts');
  const stores = createStores({
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    ...(config.databaseSchema ? { databaseSchema: config.databaseSchema } : {}),
  });
  try {
    switch (sub) {
      case 'create': {
        if (!network || !NETWORKS.includes(network)) throw new UsageError('keys create: --network testnet|mainnet is required');
        if (!ROLES.includes(role)) throw new UsageError(`keys create: --role must be one of ${ROLES.join(', ')}`);
        if (wallet !== undefined && !/^G[A-Z2-7]{55}$/.test(wallet)) throw new UsageError('keys create: --wallet must be an account address G…');
        if (!wallet && role !== 'admin') throw new UsageError('keys create: --wallet is required (only admin keys may have no wallet)');
        const scopeList = scopes ? scopes.split(',').map((s) => s.trim()).filter(Boolean) : [];
        const unknown = scopeList.filter((s) => !SCOPES.includes(s));
        if (unknown.length) throw new UsageError(`keys create: unknown scopes ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
        let expiresAt: string | null = null;
        if (expiresInDays !== undefined) {
          const d = Number(expiresInDays);
          if (!Number.isInteger(d) || d < 1) throw new UsageError('keys create: --expires-in-days must be a positive integer');
          expiresAt = new Date(Date.now() + d * 86_400_000).toISOString();
        }
        const { key, record } = await stores.keys.create({ walletAddress: wallet ?? null, network, role, scopes: scopeList, expiresAt });
        console.log(JSON.stringify({ key, ...publicRecord(record) }, null, 2));
        return 0;
      }
      case 'list': {
        const keys = await stores.keys.list(network ? { network } : {});
        console.log(JSON.stringify({ keys: keys.map(publicRecord) }, null, 2));
        return 0;
      }
      case 'revoke': {
        const keyId = positional[0];
        if (!keyId) throw new UsageError('keys revoke: <keyId> is required');
        const ok = await stores.keys.revoke(keyId);
        console.log(JSON.stringify({ key_id: keyId, revoked: ok }));
        return ok ? 0 : 1;
      }
      default:
        throw new UsageError(`keys: unknown subcommand ${JSON.stringify(sub)}`);
    }
  } finally {
    await stores.close();
  }
}

function publicRecord(r: { keyId: string; walletAddress: string | null; network: string; role: string; scopes: string[]; createdAt: string; expiresAt: string | null }) {
  return { key_id: r.keyId, wallet_address: r.walletAddress, network: r.network, role: r.role, scopes: r.scopes, created_at: r.createdAt, expires_at: r.expiresAt };
}
