// `credential-vault tx sign`: sign a prepared transaction as a wallet would, without writing a script.
//
//   curl … prepare … | credential-vault tx sign --secret-file key.txt [--submit URL]
//
// The input (argument, or standard input) is the prepare answer as JSON — the vault API's {xdr, network,
// networkPassphrase} or the resolver's {xdr, network, networkPassphrase}, whose passphrase is used — or a
// wallet-proof challenge {transaction, network_passphrase}, or bare base64 XDR with --passphrase.
// Authorization entries that name the signer need the ledger their signature is valid until:
// --valid-until-ledger N, or --rpc-url U (latest ledger + AUTH_VALIDITY_LEDGERS).
import { SignError, latestLedgerOf, needsAuthorization, signPrepared } from './sign.ts';
import type { WalletEnv } from '../config/index.ts';
import { publicUrl, redactUrls } from '../config/redact.ts';
import { UsageError, subcommand, takeFlag, type CliIo } from './args.ts';
import { refuseSecretsInArgv, takeSigningKey } from './wallet-key.ts';

/** ≈10 minutes of 5-second ledgers: longer than a prepared transaction lives (300 s), not much more. */
export const AUTH_VALIDITY_LEDGERS = 120;

/** The input is an answer of the service, not a mistake of the command line: said without the usage. */
class ServiceAnswerError extends Error {}

interface Prepared {
  xdr: string;
  passphrase?: string;
}

/** The prepare answer as JSON, or bare XDR. */
function readPrepared(text: string): Prepared {
  const trimmed = text.trim();
  if (!trimmed) throw new UsageError('tx sign: no transaction (pass the XDR or the prepare answer, or pipe it in)');
  if (!trimmed.startsWith('{')) return { xdr: trimmed };
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(trimmed) as Record<string, unknown>;
  } catch {
    throw new UsageError('tx sign: the input starts with "{" but is not JSON');
  }
  // A wallet-proof challenge (vault-api.yaml GET /auth/challenge) is signed like a prepared transaction.
  if (typeof json['transaction'] === 'string' && typeof json['network_passphrase'] === 'string') {
    return { xdr: json['transaction'], passphrase: json['network_passphrase'] };
  }
  if (typeof json['xdr'] !== 'string') {
    // A service's error envelope (vault API `{error, message}`, resolver `{code, message}`) piped in from a failed
    // prepare: its own words are the answer, not this command's usage.
    const code = json['error'] ?? json['code'];
    if (typeof code === 'string' && typeof json['message'] === 'string')
      throw new ServiceAnswerError(`tx sign: the service refused the prepare: ${code}: ${json['message']}`);
    throw new ServiceAnswerError(
      `tx sign: the JSON has no "xdr" (not a prepare answer or a challenge): ${trimmed.slice(0, 300)}`,
    );
  }
  // The vault API names the passphrase `network`; the resolver has `network: testnet` and `networkPassphrase`.
  const named = [json['networkPassphrase'], json['network']].find(
    (v) => typeof v === 'string' && v !== 'testnet' && v !== 'mainnet',
  );
  return { xdr: json['xdr'], ...(typeof named === 'string' ? { passphrase: named } : {}) };
}

export async function txCommand(argv: string[], io: CliIo, wallet: WalletEnv): Promise<number> {
  const [sub, ...rest] = argv;
  subcommand('tx', sub, ['sign']);
  const args = [...rest];
  refuseSecretsInArgv(args);
  const keypair = takeSigningKey(args, wallet.secretKey, io);
  const passphraseFlag = takeFlag(args, '--passphrase');
  const rpcUrl = takeFlag(args, '--rpc-url');
  const validUntilFlag = takeFlag(args, '--valid-until-ledger');
  const submit = takeFlag(args, '--submit');
  const unknown = args.filter((a) => a.startsWith('--'));
  if (unknown.length) throw new UsageError(`tx sign: unknown flag ${unknown.join(', ')}`);
  if (args.length > 1) throw new UsageError('tx sign: one transaction at a time');
  if (!keypair) throw new UsageError('tx sign: no key: --secret-file FILE, or CV_SECRET_KEY in the environment');

  const prepared = readPrepared(args[0] === undefined || args[0] === '-' ? await io.readStdin() : args[0]);
  if (passphraseFlag !== undefined && prepared.passphrase !== undefined && passphraseFlag !== prepared.passphrase) {
    throw new UsageError(
      `tx sign: the transaction is for "${prepared.passphrase}", not "${passphraseFlag}": refusing to sign`,
    );
  }
  const passphrase = passphraseFlag ?? prepared.passphrase;
  if (passphrase === undefined)
    throw new UsageError('tx sign: bare XDR needs --passphrase (the prepare answer names it)');

  let validUntilLedger: number | undefined;
  if (validUntilFlag !== undefined) {
    validUntilLedger = Number(validUntilFlag);
    if (!Number.isSafeInteger(validUntilLedger) || validUntilLedger < 1)
      throw new UsageError('tx sign: --valid-until-ledger must be a positive integer');
  } else if (rpcUrl !== undefined && needsAuthorization(prepared.xdr, keypair.publicKey())) {
    const latest = await reach(rpcUrl, '--rpc-url', () => latestLedgerOf(rpcUrl));
    if (latest.passphrase !== passphrase) {
      const rpcServes = `${publicUrl(rpcUrl)} serves "${latest.passphrase}"`;
      throw new UsageError(`tx sign: ${rpcServes}, the transaction is for "${passphrase}"`);
    }
    validUntilLedger = latest.sequence + AUTH_VALIDITY_LEDGERS;
  }

  let signed;
  try {
    signed = await signPrepared({
      xdr: prepared.xdr,
      passphrase,
      keypair,
      ...(validUntilLedger !== undefined ? { validUntilLedger } : {}),
    });
  } catch (err) {
    if (err instanceof SignError) throw new UsageError(`tx sign: ${err.message}`);
    throw err;
  }
  const what = [
    signed.envelopeSigned ? 'the envelope' : '',
    signed.authEntriesSigned
      ? `${signed.authEntriesSigned} authorization entr${signed.authEntriesSigned === 1 ? 'y' : 'ies'} (valid until ledger ${validUntilLedger})`
      : '',
  ]
    .filter(Boolean)
    .join(' and ');
  io.err(`signed ${what} as ${keypair.publicKey()} for "${passphrase}"`);
  if (!signed.envelopeSigned) io.err(`the source ${signed.source} must sign it next`);

  if (submit === undefined) {
    io.out(signed.signedXdr);
    return 0;
  }
  const res = await reach(submit, '--submit', () =>
    io.fetch(submit, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(wallet.apiKey ? { 'x-svc-key': wallet.apiKey } : {}) },
      body: JSON.stringify({ signedXdr: signed.signedXdr }),
    }),
  );
  io.out(await res.text());
  if (!res.ok) io.err(`${publicUrl(submit)} answered ${res.status}`);
  return res.ok ? 0 : 1;
}

/**
 * `call()`, a failure to reach `url` said with the URL as publicUrl shows it: a URL's userinfo and query (a password,
 * an API key) are never printed, neither ours nor in a library's words (docs/operations.md "Settings").
 */
async function reach<T>(url: string, flag: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
    const why = `${e instanceof Error ? e.message : String(e)}${cause}`;
    // the URL as given first (it may not even parse as one), then any other URL in the library's words
    const shown = url === '' ? why : why.replaceAll(url, publicUrl(url));
    // The URL, the flag that named it, and an HTTP status as "HTTP 404" (not the HTTP client's sentence).
    const words = redactUrls(shown).replace(/\bRequest failed with status code (\d{3})\b/g, 'HTTP $1');
    throw new Error(`tx sign: cannot reach ${publicUrl(url)} (${flag}): ${words}`);
  }
}
