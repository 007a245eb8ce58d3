// `credential-vault vc sign`: an issuer's Data Integrity proof (eddsa-jcs-2022, or eddsa-rdfc-2022 with
// `--cryptosuite eddsa-rdfc-2022`; purpose assertionMethod) on a
// credential, made where the key lives, as a wallet or an issuer's backend does with the client's
// signCredential. The service never sees the key: what this prints goes into an issue request's vcData. With
// --status-owner and --status-vc-id the credential carries its LedgerVaultStatusEntry (./vc-status.ts).
//
//   echo '{"@context": [...], "issuer": "did:ledger:…", …}' \
//     | credential-vault vc sign --secret-file issuer.key --verification-method 'did:ledger:…#assert-1' \
//         [--status-owner G… --status-vc-id degree-1 [--vault-api http://127.0.0.1:3000]]
import { signCredential } from '../did/index.ts';
import type { WalletEnv } from '../config/index.ts';
import { UsageError, takeFlag, type CliIo } from './args.ts';
import { ledgerVaultStatus, takeStatusFlags } from './vc-status.ts';
import { refuseSecretsInArgv, takeSigningKey } from './wallet-key.ts';

/** The credential to sign: a JSON object, from the argument or standard input. */
function readCredential(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (!trimmed) throw new UsageError('vc sign: no credential (pass its JSON, or pipe it in)');
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new UsageError('vc sign: the credential is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('vc sign: the credential must be a JSON object');
  }
  return value as Record<string, unknown>;
}

export async function vcCommand(argv: string[], io: CliIo, wallet: WalletEnv): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'sign') throw new UsageError(`vc: unknown subcommand ${JSON.stringify(sub)}`);
  const args = [...rest];
  refuseSecretsInArgv(args);
  const keypair = takeSigningKey(args, wallet.secretKey, io);
  const verificationMethod = takeFlag(args, '--verification-method');
  const created = takeFlag(args, '--created');
  const status = takeStatusFlags(args);
  const cryptosuite = takeFlag(args, '--cryptosuite') ?? 'eddsa-jcs-2022';
  if (cryptosuite !== 'eddsa-jcs-2022' && cryptosuite !== 'eddsa-rdfc-2022')
    throw new UsageError('vc sign: --cryptosuite must be eddsa-jcs-2022 (the default) or eddsa-rdfc-2022');
  const asString = args.includes('--json-string');
  if (asString) args.splice(args.indexOf('--json-string'), 1);
  const unknown = args.filter((a) => a.startsWith('--'));
  if (unknown.length) throw new UsageError(`vc sign: unknown flag ${unknown.join(', ')}`);
  if (args.length > 1) throw new UsageError('vc sign: one credential at a time');
  if (!keypair) throw new UsageError('vc sign: no key: --secret-file FILE, or CV_SECRET_KEY in the environment');
  if (!verificationMethod || !/^did:[a-z0-9]+:\S+#\S+$/.test(verificationMethod)) {
    const example = 'did:ledger:testnet:…#assert-1';
    throw new UsageError(`vc sign: --verification-method must name the issuer DID's assertion key, e.g. ${example}`);
  }
  const credential = readCredential(args[0] === undefined || args[0] === '-' ? await io.readStdin() : args[0]);
  const ledgerStatus = status ? await ledgerVaultStatus(status, io) : undefined;
  let signed;
  try {
    signed = await signCredential({
      credential,
      verificationMethod,
      secretKey: keypair.rawSecretKey(),
      created: created ?? new Date(),
      ...(ledgerStatus ? { ledgerVaultStatus: ledgerStatus } : {}),
      cryptosuite,
    });
  } catch (err) {
    throw new UsageError(`vc sign: ${err instanceof Error ? err.message : String(err)}`);
  }
  const json = JSON.stringify(signed);
  // --json-string: the credential as a JSON string, as an issue request's vcData takes it.
  io.out(asString ? JSON.stringify(json) : json);
  io.err(`signed ${cryptosuite} with ${verificationMethod} (the key of ${keypair.publicKey()})`);
  if (ledgerStatus)
    io.err(
      `status: LedgerVaultStatusEntry of ${ledgerStatus.vcId} in ${ledgerStatus.vaultContract} (${ledgerStatus.network})`,
    );
  return 0;
}
