// `credential-vault did new | multikey | create`: a fresh did:ledger DID to register, the Multikey
// (publicKeyMultibase) of an Ed25519 account key, as a DID record's authentication keys take it, and (./did-create.ts)
// a DID created through the resolver's Universal Registrar.
import { StrKey } from '@stellar/stellar-sdk';
import { type WalletEnv } from '../config/index.ts';
import { encodeMultikey, generateDid } from '../did/index.ts';
import { UsageError, subcommand, takeFlag, type CliIo } from './args.ts';
import { refuseSecretsInArgv, takeSigningKey } from './wallet-key.ts';
import { type Network, NETWORKS } from '../domain.ts';

export function didCommand(argv: string[], io: CliIo, wallet: WalletEnv): number | Promise<number> {
  const [given, ...rest] = argv;
  const sub = subcommand('did', given, ['new', 'multikey', 'create']);
  const args = [...rest];
  if (sub === 'create') return import('./did-create.ts').then((m) => m.didCreateCommand(args, io, wallet));
  if (sub === 'new') {
    // 16 random bytes, in the canonical base32 spelling the registry keys records by.
    const network = (takeFlag(args, '--network') ?? 'testnet') as Network;
    if (!NETWORKS.includes(network)) throw new UsageError(`did new: --network must be one of ${NETWORKS.join(', ')}`);
    if (args.length) throw new UsageError(`did new: unexpected ${args.join(' ')}`);
    io.out(generateDid({ network }).did);
    return 0;
  }
  refuseSecretsInArgv(args);
  const account = takeFlag(args, '--public');
  const keypair = account === undefined ? takeSigningKey(args, wallet.secretKey, io) : undefined;
  if (args.length) throw new UsageError(`did multikey: unexpected ${args.join(' ')}`);
  let raw: Uint8Array;
  if (account !== undefined) {
    if (!StrKey.isValidEd25519PublicKey(account))
      throw new UsageError('did multikey: --public must be an account address G…');
    raw = StrKey.decodeEd25519PublicKey(account);
  } else if (keypair) {
    raw = keypair.rawPublicKey();
  } else {
    throw new UsageError('did multikey: --public G…, --secret-file FILE, or CV_SECRET_KEY in the environment');
  }
  io.out(encodeMultikey('Ed25519', raw));
  return 0;
}
