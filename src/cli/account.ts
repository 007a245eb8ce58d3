// `credential-vault account new --secret-file FILE`: a new ledger account key for trying the API by hand.
// The secret goes into FILE (created, owner-only, never overwritten) and never to the terminal; the
// address is printed, to fund with friendbot and to name as sourcePublicKey or controller.
import { writeFileSync } from 'node:fs';
import { Keypair } from '@stellar/stellar-sdk';
import { UsageError, subcommand, takeFlag, type CliIo } from './args.ts';
import { refuseSecretsInArgv } from './wallet-key.ts';

export function accountCommand(argv: string[], io: CliIo): number {
  const [sub, ...rest] = argv;
  subcommand('account', sub, ['new']);
  const args = [...rest];
  refuseSecretsInArgv(args);
  const file = takeFlag(args, '--secret-file');
  if (file === undefined)
    throw new UsageError('account new: --secret-file FILE is required (the secret is written there, never printed)');
  if (args.length) throw new UsageError(`account new: unexpected ${args.join(' ')}`);
  const kp = Keypair.random();
  try {
    writeFileSync(file, `${kp.secret()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `account new: ${file}: ${code === 'EEXIST' ? 'exists already (never overwritten)' : (code ?? (err as Error).message)}`,
    );
  }
  io.out(kp.publicKey());
  return 0;
}
