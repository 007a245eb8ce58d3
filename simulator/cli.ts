// `credential-vault simulator [--port 8000] [--host 127.0.0.1] [--state-file F]`: serves both networks until
// SIGINT/SIGTERM, then writes the state file. Resolves with the process exit code.
import { startSimulator, NETWORK_NAMES } from './index.ts';

const USAGE = `usage: credential-vault simulator [--port 8000] [--host 127.0.0.1] [--state-file FILE]

Serves the testnet and mainnet simulators:
  POST /<network>/rpc                Soroban JSON-RPC (plus sim_* cheat methods, see simulator/README.md)
  GET  /<network>/friendbot?addr=G…  funds an account with 10,000 XLM
With --state-file the ledger is loaded at start (when the file exists), journaled before every answer that
changed it (kill -9 loses nothing answered) and saved on exit.`;

interface CliOptions {
  port: number;
  host: string;
  stateFile?: string;
}

function parse(args: string[]): CliOptions | 'help' {
  const o: CliOptions = { port: 8000, host: '127.0.0.1' };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const p = Number(value());
        if (!Number.isInteger(p) || p < 0 || p > 65535) throw new Error('--port must be 0..65535');
        o.port = p;
        break;
      }
      case '--host':
        o.host = value();
        break;
      case '--state-file':
        o.stateFile = value();
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

export async function runSimulator(args: string[], out: (line: string) => void = (l) => console.log(l)): Promise<number> {
  let parsed: CliOptions | 'help';
  try {
    parsed = parse(args);
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed === 'help') {
    out(USAGE);
    return 0;
  }
  const opts = parsed;
  const running = await startSimulator({ port: opts.port, host: opts.host, stateFile: opts.stateFile });
  out(`credential-vault simulator listening on ${running.url}${opts.stateFile ? ` (state file ${opts.stateFile})` : ''}`);
  for (const name of NETWORK_NAMES) {
    const n = running.networks[name];
    out(`\n[${name}]`);
    out(`  passphrase      ${n.passphrase}`);
    out(`  rpc             ${n.rpcUrl}`);
    out(`  friendbot       ${n.friendbotUrl}?addr=G…`);
    out(`  factory         ${n.factoryId}`);
    out(`  registry        ${n.registryId}`);
    out(`  vault wasm hash ${n.vaultWasmHash}`);
    out(`  fee token       ${n.feeTokenId} (${n.stablecoin ? `USDC:${n.stablecoin.issuer}` : 'native'}, ${n.feeAmount} stroops per credential)`);
    out(`  admin           ${n.admin.publicKey} (secret ${n.admin.secret})`);
  }
  return new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      out(`\n${signal}: stopping${opts.stateFile ? `, saving ${opts.stateFile}` : ''}`);
      running.close().then(
        () => resolve(0),
        (e: unknown) => {
          console.error(`could not save the state: ${(e as Error).message}`);
          resolve(1);
        },
      );
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}
