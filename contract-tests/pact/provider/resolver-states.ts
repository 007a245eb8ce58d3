// Provider states of the did:ledger resolver, built through the resolver itself over the chain simulator:
// funded accounts (friendbot), DIDs registered and deactivated with prepare → controller signs → submit,
// proof-of-control challenges issued by the resolver and signed with the DID's authentication key.
// Nothing is mocked. Each handler returns the values its pact interactions inject.
import { Keypair } from '@stellar/stellar-sdk';
import { canonicalizeToBytes, generateDid } from '../../../src/did/index.ts';
import { multikey, sign, type Harness, type RegisteredDid } from '../../../test-support/resolver.ts';
import { RESOLVER_STATES as S } from '../shared.ts';
import { sharedStates, type JsonMap, type StateHandlerMap } from './states.ts';

const DOMAIN = 'vault.example.org';

export function resolverStateHandlers(h: Harness): StateHandlerMap {
  // The interactions given the registered and the deactivated DID only read, prepare or fail: built once
  // and shared. The signed transactions and challenges are built every time: an interaction consumes them.
  const once = sharedStates();

  /** Prepare at `path`, signed by `signer`; the signed envelope, not submitted. */
  async function prepareSigned(path: string, body: unknown, signer: Keypair): Promise<string> {
    const prepared = await h.post(path, body);
    if (prepared.status !== 200) throw new Error(`state: prepare ${path}: ${prepared.status} ${prepared.text}`);
    return sign(prepared.body.xdr as string, prepared.body.networkPassphrase as string, [signer]);
  }

  async function deactivate(d: RegisteredDid, expectedVersion = 1): Promise<void> {
    const r = await h.prepareSignSubmit(
      `/v1/dids/stellar/${d.did}/deactivate`,
      { expectedVersion, sourcePublicKey: d.controller.publicKey() },
      [d.controller],
    );
    if (r.status !== 200) throw new Error(`state: deactivate ${d.did}: ${r.status} ${r.text}`);
  }

  const described = (d: RegisteredDid, version: number): JsonMap => ({
    did: d.did,
    controller: d.controller.publicKey(),
    version,
  });

  /** A challenge for `d` issued by the resolver and signed with its first authentication key. */
  async function signedChallenge(d: RegisteredDid): Promise<JsonMap> {
    const issued = await h.post('/v1/proof/challenge', { did: d.did, domain: DOMAIN });
    if (issued.status !== 200) throw new Error(`state: challenge: ${issued.status} ${issued.text}`);
    const challenge = issued.body as { did: string; domain: string; nonce: string; timestamp: string };
    const signature = Buffer.from(d.authKeys[0]!.sign(canonicalizeToBytes(challenge))).toString('base64url');
    return { ...challenge, signature };
  }

  return {
    [S.fundedAccount]: async () => ({
      account: (await h.account()).publicKey(),
      did: generateDid({ network: 'testnet' }).did,
    }),
    [S.registeredDid]: once(S.registeredDid, async () => described(await h.registerDid(), 1)),
    [S.deactivatedDid]: once(S.deactivatedDid, async () => {
      const d = await h.registerDid();
      await deactivate(d);
      return described(d, 2);
    }),
    [S.signedRegister]: async () => {
      const controller = await h.account();
      const { did } = generateDid({ network: 'testnet' });
      const record = {
        controller: controller.publicKey(),
        authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
        assertionMethod: [],
        keyAgreement: [],
        services: [],
      };
      return {
        did,
        signedXdr: await prepareSigned(
          '/v1/dids/stellar',
          { did, sourcePublicKey: controller.publicKey(), record },
          controller,
        ),
      };
    },
    [S.signedUpdate]: async () => {
      const d = await h.registerDid();
      const body = {
        expectedVersion: 1,
        sourcePublicKey: d.controller.publicKey(),
        record: { ...d.record, services: [] },
      };
      return { did: d.did, signedXdr: await prepareSigned(`/v1/dids/stellar/${d.did}/update`, body, d.controller) };
    },
    [S.signedDeactivate]: async () => {
      const d = await h.registerDid();
      const body = { expectedVersion: 1, sourcePublicKey: d.controller.publicKey() };
      return { did: d.did, signedXdr: await prepareSigned(`/v1/dids/stellar/${d.did}/deactivate`, body, d.controller) };
    },
    [S.signedProof]: async () => signedChallenge(await h.registerDid()),
    [S.signedProofDeactivated]: async () => {
      const d = await h.registerDid();
      const values = await signedChallenge(d);
      await deactivate(d);
      return values;
    },
  };
}
