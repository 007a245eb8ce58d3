// `credential-vault simulator [--port 8000] [--host 127.0.0.1] [--state-file F] [--protocol 28]
// [--ledger-close-ms N]`: serves both networks until SIGINT/SIGTERM, then writes the state file. Resolves with the
// process exit code.
import {
  MAX_PROTOCOL,
  MIN_PROTOCOL,
  PROTOCOL_VERSION,
  parseLedgerCloseMs,
  parseProtocol,
  startSimulator,
} from './index.ts';
import { NETWORKS } from './core/network-names.ts';
import { simulatorListenFailure } from './listen-failure.ts';

const USAGE = `usage: credential-vault simulator [--port 8000] [--host 127.0.0.1] [--state-file FILE]
                                   [--protocol ${PROTOCOL_VERSION}] [--ledger-close-ms N]

Serves the testnet and mainnet simulators:
  POST /<network>/rpc                Soroban JSON-RPC (plus sim_* cheat methods, see simulator/README.md)
  GET  /<network>/friendbot?addr=G…  funds an account with 10,000 XLM
With --state-file the ledger is loaded at start (when the file exists), journaled before every answer that
changed it (kill -9 loses nothing answered) and saved on exit.
--protocol ${MIN_PROTOCOL}..${MAX_PROTOCOL} emulates an older network (default ${PROTOCOL_VERSION}, the networks' own,
or CV_SIMULATOR_PROTOCOL).
--ledger-close-ms N closes a ledger every N ms (1000 to 600000: close times are whole seconds, each later than
the last) with the transactions queued meanwhile, as a real network does about every 5000 ms: sendTransaction
answers PENDING and getTransaction NOT_FOUND until then (default 0: every transaction is applied at once; or
CV_SIMULATOR_LEDGER_CLOSE_MS).`;

interface CliOptions {
  port: number;
  host: string;
  stateFile?: string;
  protocol: number;
  ledgerCloseMs: number;
}

/** A refused value of a known flag or setting: one line, without the usage (an unknown argument gets the usage). */
class ValueError extends Error {}

/** `parse(value)`, its RangeError said as `label: message`. */
function parsedSetting<T>(label: string, value: string, parse: (v: string) => T): T {
  try {
    return parse(value);
  } catch (e) {
    throw new ValueError(`${label}: ${(e as Error).message}`);
  }
}

function parsePort(value: string): number {
  const p = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(p >= 0 && p <= 65535)) throw new RangeError(`expected a port from 0 to 65535, got ${JSON.stringify(value)}`);
  return p;
}

function parse(args: string[], defaults: CliDefaults): CliOptions | 'help' {
  const { protocol: p, ledgerCloseMs: ms } = defaults;
  const protocol = p === undefined ? PROTOCOL_VERSION : parsedSetting('CV_SIMULATOR_PROTOCOL', p, parseProtocol);
  const ledgerCloseMs = ms === undefined ? 0 : parsedSetting('CV_SIMULATOR_LEDGER_CLOSE_MS', ms, parseLedgerCloseMs);
  const o: CliOptions = { port: 8000, host: '127.0.0.1', protocol, ledgerCloseMs };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const [flag, inline] = eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === '') throw new ValueError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--port':
        o.port = parsedSetting(flag, value(), parsePort);
        break;
      case '--host':
        o.host = value();
        break;
      case '--state-file':
        o.stateFile = value();
        break;
      case '--protocol':
        o.protocol = parsedSetting(flag, value(), parseProtocol);
        break;
      case '--ledger-close-ms':
        o.ledgerCloseMs = parsedSetting(flag, value(), parseLedgerCloseMs);
        break;
      case '-h':
      case '--help':
        return 'help';
      default:
        throw new Error(`unknown argument ${a}`);
    }
  }
  return o;
}

/** Defaults from the environment (read by src/config); flags win. */
export interface CliDefaults {
  protocol?: string;
  ledgerCloseMs?: string;
}

/** Taken before the state file is read, released once it is saved: one process per state file (the command's
 *  wiring passes the product's lock; the simulator has none of its own). */
export type StateFileLock = (file: string) => { release(): void };

export async function runSimulator(
  args: string[],
  out: (line: string) => void = (l) => console.log(l),
  defaults: CliDefaults = {},
  lockStateFile?: StateFileLock,
): Promise<number> {
  let parsed: CliOptions | 'help';
  try {
    parsed = parse(args, defaults);
  } catch (e) {
    const msg = (e as Error).message;
    console.error(e instanceof ValueError ? msg : `${msg}\n\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    out(USAGE);
    return 0;
  }
  const opts = parsed;
  let lock: { release(): void } | undefined;
  try {
    lock = opts.stateFile && lockStateFile ? lockStateFile(opts.stateFile) : undefined;
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  }
  let running;
  try {
    const { port, host, stateFile, protocol, ledgerCloseMs } = opts;
    running = await startSimulator({ port, host, stateFile, protocol, ledgerCloseMs });
  } catch (e) {
    lock?.release();
    console.error(simulatorListenFailure(e, opts.host, opts.port));
    return 1;
  }
  const timing = opts.ledgerCloseMs ? `a ledger every ${opts.ledgerCloseMs} ms` : 'every transaction applied at once';
  return new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      out(`\n${signal}: stopping${opts.stateFile ? `, saving ${opts.stateFile}` : ''}`);
      running
        .close()
        .then(
          () => resolve(0),
          (e: unknown) => {
            console.error(`could not save the state: ${(e as Error).message}`);
            resolve(1);
          },
        )
        .finally(() => lock?.release());
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    // The banner once the handlers are in place: whoever reads it may stop the simulator at once.
    const state = opts.stateFile ? ` (state file ${opts.stateFile})` : '';
    out(`credential-vault simulator listening on ${running.url}, Protocol ${opts.protocol}, ${timing}${state}`);
    for (const name of NETWORKS) {
      const n = running.networks[name];
      out(`\n[${name}]`);
      out(`  passphrase      ${n.passphrase}`);
      out(`  rpc             ${n.rpcUrl}`);
      out(`  friendbot       ${n.friendbotUrl}?addr=G…`);
      out(`  factory         ${n.factoryId}`);
      out(`  registry        ${n.registryId}`);
      out(`  vault wasm hash ${n.vaultWasmHash}`);
      const asset = n.stablecoin ? `USDC:${n.stablecoin.issuer}` : 'native';
      out(`  fee token       ${n.feeTokenId} (${asset}, ${n.feeAmount} stroops per credential)`);
      // The secret is a cheat's answer (sim_info), never printed: banners end up in logs.
      out(`  admin           ${n.admin.publicKey} (its secret: the sim_info RPC method, admin.secret)`);
    }
  });
}
