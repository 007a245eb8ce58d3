// `credential-vault <command>`: start | serve | resolver | simulator | keys | tx | did | vc | account | help.
import path from 'node:path';
import {
  ConfigError,
  loadConfig,
  parentMayVanish,
  readSettings,
  settingsTable,
  walletEnv,
  type Config,
} from './config/index.ts';
import { watchParent } from './cli/parent-watch.ts';
import { isAccountAddress } from './openapi/formats.ts';
import { UsageError, processIo, subcommand, takeFlag } from './cli/args.ts';
import { publicUrl } from './config/redact.ts';
import { API_KEY_SCOPES, isScope, KEY_ROLES, type KeyRole, type Network, NETWORKS } from './domain.ts';

const TX_USAGE = `tx sign [--secret-file FILE] [--passphrase P] [--rpc-url U | --valid-until-ledger N] [--submit URL] [XDR|JSON|-]
              signs a prepared transaction (argument or standard input: the prepare answer's JSON, a
              wallet-proof challenge's JSON, or bare XDR) with the secret in FILE or CV_SECRET_KEY (never a
              flag): authorization entries that name the key (valid until ledger N, or the RPC's latest +
              120), then the envelope if the key is its source; prints the signed XDR, or with --submit posts
              {signedXdr} to URL (X-SVC-Key: CV_API_KEY when set) and prints the answer`;
const DID_USAGE = `did new [--network testnet|mainnet]
              prints a fresh did:ledger DID (16 random bytes, canonical) to register
  did multikey --public G… | --secret-file FILE
              prints the Multikey (z6Mk…) of an account's Ed25519 key; with no flag, of CV_SECRET_KEY's key
  did create --registrar URL [--network testnet|mainnet] [--auth-key z6Mk…] [--assertion-key z6Mk…]
              [--secret-file FILE]
              creates a DID through the resolver's Universal Registrar (client-managed secret mode): the key
              in FILE or CV_SECRET_KEY controls it and signs here; prints the final state as JSON`;
const VC_USAGE = `vc sign --verification-method DID#assert-N [--secret-file FILE] [--created ISO] [--cryptosuite eddsa-jcs-2022|eddsa-rdfc-2022] [--json-string] [JSON]
              [--status-owner G… --status-vc-id ID [--vault-api URL]]
              signs a credential (argument or standard input) as its issuer, Data Integrity eddsa-jcs-2022
              (default) or eddsa-rdfc-2022,
              with the secret in FILE or CV_SECRET_KEY; prints it with its proof (--json-string: as a JSON
              string, as an issue request's vcData takes it). With --status-owner and --status-vc-id it first
              adds the credential's LedgerVaultStatusEntry: the owner's vault on the network of the vault API
              at URL (default http://127.0.0.1:3000), so verifiers read its revocation on the chain`;
const ACCOUNT_USAGE = `account new --secret-file FILE
              a new account key: the secret into FILE (owner-only, never overwritten), the address G… printed`;
const KEYS_USAGE = `keys create --network N --wallet G… [--role standard|early|admin] [--scopes a,b]
              [--expires-in-days D]
              an API key: the key printed once, with its record (admin keys may have no wallet)
  keys list [--network N]
              the keys' records, never the keys
  keys revoke <keyId>
              revokes a key; each keys command names the store it uses (data directory or database) on
              standard error`;

const USAGE = `usage: credential-vault <command> [flags]

commands:
  start       embedded default: chain simulator (8000), vault API testnet (3000) and mainnet (3002),
              DID resolver (3001), data in ./data
  serve       one vault API for one network (--network testnet|mainnet, --port)
  resolver    the DID resolver alone (--resolver-port; --resolver-networks testnet serves one network)
  simulator   the chain simulator alone: [--port 8000] [--host 127.0.0.1] [--state-file F] [--protocol 26..28]
              [--ledger-close-ms N]
  ${KEYS_USAGE}
  ${TX_USAGE}
  ${DID_USAGE}
  ${VC_USAGE}
  ${ACCOUNT_USAGE}
  help        this text and every setting

Every setting below is an environment variable and a flag; flags win.`;

/** A command's own usage (--help prints it, a usage error ends with it); the others get USAGE. */
const OWN_USAGE: Record<string, string> = {
  keys: KEYS_USAGE,
  tx: TX_USAGE,
  did: DID_USAGE,
  vc: VC_USAGE,
  account: ACCOUNT_USAGE,
};
const usageOf = (command: string | undefined) =>
  command !== undefined && OWN_USAGE[command] ? `usage: credential-vault ${OWN_USAGE[command]}` : USAGE;

const SERVING: ReadonlySet<string> = new Set(['start', 'serve', 'resolver', 'simulator']);

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  // --help anywhere after a command prints its usage and does nothing else: no server, no store, no key read.
  // (The simulator parses its own command line, --help included.)
  if (command !== 'simulator' && args.some((a) => a === '--help' || a === '-h')) {
    if (command === 'start' || command === 'serve' || command === 'resolver')
      console.log(`${USAGE}\n\n${settingsTable()}`);
    else console.log(usageOf(command));
    return 0;
  }
  // The long-running commands stop when npm's shell (or the re-exec wrapper) above them dies without a signal.
  const unwatch = SERVING.has(command ?? '') && parentMayVanish() ? watchParent() : undefined;
  try {
    switch (command) {
      case 'start':
      case 'serve':
      case 'resolver': {
        const { config, rest } = loadConfig(args);
        // A mistyped flag must not fall back to a default silently (an embedded store instead of the database).
        if (rest.length)
          throw new UsageError(
            `${command}: unknown flag or argument ${rest.join(' ')} (\`credential-vault help\` lists every setting's flag)`,
          );
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
      case 'simulator':
        return await simulatorCommand(args);
      case 'keys':
        return await keysCommand(args);
      case 'tx': {
        const { txCommand } = await import('./cli/tx.ts');
        return await txCommand(args, processIo, walletEnv());
      }
      case 'did': {
        const { didCommand } = await import('./cli/did.ts');
        return await didCommand(args, processIo, walletEnv());
      }
      case 'vc': {
        const { vcCommand } = await import('./cli/vc.ts');
        return await vcCommand(args, processIo, walletEnv());
      }
      case 'account': {
        const { accountCommand } = await import('./cli/account.ts');
        return accountCommand(args, processIo);
      }
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
      console.error(`${err.message}\n\n${usageOf(command)}`);
      return 2;
    }
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  } finally {
    unwatch?.();
  }
}

/** `credential-vault simulator`: the simulator's own command line, with one process per state file. */
async function simulatorCommand(args: string[]): Promise<number> {
  const { runSimulator } = await import('../simulator/cli.ts');
  // CV_SIMULATOR_PROTOCOL and CV_SIMULATOR_LEDGER_CLOSE_MS are read here (src/config reads the environment);
  // the flags win.
  const { raw } = readSettings([]);
  const defaults = { protocol: raw.simulatorProtocol, ledgerCloseMs: raw.ledgerCloseMs };
  const { lockStateFile } = await import('./data-dir-lock.ts');
  return await runSimulator(args, undefined, defaults, (file) => lockStateFile(file));
}

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

async function keysCommand(argv: string[]): Promise<number> {
  const [given, ...rest] = argv;
  // Checked before anything else, so that a wrong command line creates no data directory.
  const sub = subcommand('keys', given, ['create', 'list', 'revoke']);
  const args = [...rest];
  const network = takeFlag(args, '--network') as Network | undefined;
  const wallet = takeFlag(args, '--wallet');
  const role = (takeFlag(args, '--role') ?? 'standard') as KeyRole;
  const scopes = takeFlag(args, '--scopes');
  const expiresInDays = takeFlag(args, '--expires-in-days');
  const { config, rest: positional } = loadConfig(args);
  const unexpected = sub === 'revoke' ? positional.filter((a, i) => i > 0 || a.startsWith('-')) : positional;
  if (unexpected.length) throw new UsageError(`keys ${sub}: unknown flag or argument ${unexpected.join(' ')}`);
  const { createStores } = await import('./stores/index.ts');
  const stores = createStores({
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    ...(config.databaseSchema ? { databaseSchema: config.databaseSchema } : {}),
  });
  // On standard error, so that standard output stays the JSON answer.
  console.error(`store: ${describeKeyStore(config)}`);
  try {
    switch (sub) {
      case 'create': {
        if (!network || !NETWORKS.includes(network))
          throw new UsageError('keys create: --network testnet|mainnet is required');
        if (!KEY_ROLES.includes(role)) {
          throw new UsageError(`keys create: --role must be one of ${KEY_ROLES.join(', ')}`);
        }
        if (wallet !== undefined && !isAccountAddress(wallet))
          throw new UsageError('keys create: --wallet must be an account address G… with a valid checksum');
        if (!wallet && role !== 'admin')
          throw new UsageError('keys create: --wallet is required (only admin keys may have no wallet)');
        const scopeList = scopes
          ? scopes
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [];
        const unknown = scopeList.filter((s) => !isScope(s));
        if (unknown.length)
          throw new UsageError(
            `keys create: unknown scopes ${unknown.join(', ')} (known: ${API_KEY_SCOPES.join(', ')})`,
          );
        let expiresAt: string | null = null;
        if (expiresInDays !== undefined) {
          const d = Number(expiresInDays);
          if (!Number.isInteger(d) || d < 1)
            throw new UsageError('keys create: --expires-in-days must be a positive integer');
          expiresAt = new Date(Date.now() + d * 86_400_000).toISOString();
        }
        const { key, record } = await stores.keys.create({
          walletAddress: wallet ?? null,
          network,
          role,
          scopes: scopeList,
          expiresAt,
        });
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
    }
  } finally {
    await stores.close();
  }
}

/** Where the keys live, for the operator: the database (host and name, no userinfo or query) or the data directory. */
export function describeKeyStore(config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'>): string {
  const schema = config.databaseSchema ? ` (schema ${config.databaseSchema})` : '';
  if (config.databaseUrl) return `PostgreSQL ${publicUrl(config.databaseUrl)}${schema}`;
  return `data directory ${path.resolve(config.dataDir)}`;
}

function publicRecord(r: {
  keyId: string;
  walletAddress: string | null;
  network: string;
  role: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
}) {
  return {
    key_id: r.keyId,
    wallet_address: r.walletAddress,
    network: r.network,
    role: r.role,
    scopes: r.scopes,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
  };
}
