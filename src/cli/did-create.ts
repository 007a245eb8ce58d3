// `credential-vault did create --registrar URL`: a did:ledger DID created through the resolver's DIF Universal
// Registrar in client-managed secret mode. The controller's key (--secret-file FILE or CV_SECRET_KEY, never a
// flag) signs the transaction hash the registrar asks for, here; the key never leaves the process. The
// document holds the controller's own key as its authentication key unless --auth-key names another, and
// --assertion-key adds an assertion key. Prints the final state (finished: the DID and its document) as JSON.
import type { WalletEnv } from '../config/index.ts';
import { createRegistrar } from '../client/registrar.ts';
import { createResolverClient } from '../client/resolver.ts';
import { encodeMultikey } from '../did/index.ts';
import { UsageError, takeFlag, type CliIo } from './args.ts';
import { refuseSecretsInArgv, takeSigningKey } from './wallet-key.ts';
import { NETWORKS, type Network } from '../domain.ts';

export async function didCreateCommand(args: string[], io: CliIo, wallet: WalletEnv): Promise<number> {
  refuseSecretsInArgv(args);
  const registrarUrl = takeFlag(args, '--registrar');
  if (registrarUrl === undefined) throw new UsageError('did create: --registrar URL (the resolver) is required');
  const network = (takeFlag(args, '--network') ?? 'testnet') as Network;
  if (!NETWORKS.includes(network)) throw new UsageError(`did create: --network must be one of ${NETWORKS.join(', ')}`);
  const authKey = takeFlag(args, '--auth-key');
  const assertionKey = takeFlag(args, '--assertion-key');
  const keypair = takeSigningKey(args, wallet.secretKey, io);
  if (!keypair) throw new UsageError('did create: the controller signs: --secret-file FILE or CV_SECRET_KEY');
  if (args.length) throw new UsageError(`did create: unexpected ${args.join(' ')}`);
  const methods = [
    {
      id: '#auth-1',
      type: 'Multikey',
      publicKeyMultibase: authKey ?? encodeMultikey('Ed25519', keypair.rawPublicKey()),
    },
    ...(assertionKey ? [{ id: '#assert-1', type: 'Multikey', publicKeyMultibase: assertionKey }] : []),
  ];
  const didDocument = {
    verificationMethod: methods,
    authentication: ['#auth-1'],
    ...(assertionKey ? { assertionMethod: ['#assert-1'] } : {}),
  };
  const client = createResolverClient({ baseUrl: registrarUrl.replace(/\/+$/, ''), fetch: io.fetch });
  const state = await createRegistrar(client).create({
    wallet: keypair,
    network,
    didDocument,
    options: { controller: keypair.publicKey() },
  });
  io.out(JSON.stringify(state, null, 2));
  if (state.didState.state === 'finished') return 0;
  io.err(`did create: ${state.didState.error ?? state.didState.state}: ${state.didState.reason ?? ''}`);
  return 1;
}
