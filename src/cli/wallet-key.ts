// The signing key of the wallet-side commands: from --secret-file or CV_SECRET_KEY, never from argv.
import { readFileSync, statSync } from 'node:fs';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { UsageError, takeFlag, type CliIo } from './args.ts';

const NO_ARGV = 'a secret never goes on the command line (shell history, ps): use --secret-file FILE or CV_SECRET_KEY';
const SECRET_FLAGS: readonly string[] = ['--secret', '--secret-key', '--secret-seed', '--seed'];

/** Refuses a secret given as a flag or as a bare argument, without echoing it. */
export function refuseSecretsInArgv(args: readonly string[]): void {
  if (args.some((a) => SECRET_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)))) throw new UsageError(NO_ARGV);
  if (args.some((a) => StrKey.isValidEd25519SecretSeed(a.trim()))) throw new UsageError(NO_ARGV);
}

/** The keypair of `--secret-file` (taken out of `args`), else of `secretKey` (CV_SECRET_KEY); undefined if neither. */
export function takeSigningKey(args: string[], secretKey: string | undefined, io: CliIo): Keypair | undefined {
  const file = takeFlag(args, '--secret-file');
  let seed: string;
  let from: string;
  if (file !== undefined) {
    try {
      seed = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new UsageError(`--secret-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    // Like ssh with a private key: say so when others may read the file.
    if ((statSync(file).mode & 0o077) !== 0) io.err(`warning: ${file} is readable by other users (chmod 600 ${file})`);
    from = `--secret-file ${file}`;
  } else if (secretKey !== undefined) {
    seed = secretKey;
    from = 'CV_SECRET_KEY';
  } else {
    return undefined;
  }
  if (!StrKey.isValidEd25519SecretSeed(seed)) throw new UsageError(`${from}: not a secret seed (S…, 56 characters)`);
  return Keypair.fromSecret(seed);
}
