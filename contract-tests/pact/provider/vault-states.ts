// Provider states of the vault API, built on the chain simulator the way users build them: funded accounts
// (friendbot), keys in the key store, DIDs registered in the registry, and every vault write prepared by
// the app itself, signed with the owner's, issuer's or factory admin's key, and submitted. Nothing is
// mocked. Each handler returns the values its pact interactions inject (`fromProviderState`).
import { randomBytes } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import { signCredential } from '../../../src/did/index.ts';
import { registerIssuerDid, type VaultTestEnv } from '../../../test-support/vault-api.ts';
import { EXAMPLE, VAULT_STATES as S } from '../shared.ts';
import { sharedStates, type JsonMap, type StateHandlerMap } from './states.ts';

/** The credential every state issues: what the consumer reads back through get-vc. */
export const VC_DATA = JSON.stringify({
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  validFrom: '2026-07-01T00:00:00Z',
  credentialSubject: {
    id: EXAMPLE.holderDid,
    degree: { type: 'BachelorDegree', name: 'Bachelor of Science in Mathematics' },
  },
});

interface VaultWorld {
  owner: Keypair;
  issuer: Keypair;
  stranger: Keypair;
  values: JsonMap;
}

const paramOf = (params: unknown, name: string, fallback: string): string => {
  const v = (params as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : fallback;
};

export function vaultStateHandlers(env: VaultTestEnv): StateHandlerMap {
  // The interactions given these states only prepare, read or fail, and never submit: built once per
  // (state, params) and shared. The signed transactions and the keys to revoke are built every time.
  const once = sharedStates();

  /** An admin key of the handlers' own, for the writes that build states. */
  let operator: Promise<string> | undefined;
  const operatorKey = (): Promise<string> =>
    (operator ??= env.fund().then(async (wallet) => (await env.mintKey({ wallet, role: 'admin' })).key));

  /** Prepare with `key` (default: the operator's), sign with `signer`; the signed envelope. */
  async function prepareSigned(
    path: string,
    body: unknown,
    signer: Keypair,
    key?: string,
    method = 'POST',
  ): Promise<string> {
    const prepared = await env.request(path, { key: key ?? (await operatorKey()), body, method });
    if (prepared.status !== 200)
      throw new Error(`state: prepare ${path}: ${prepared.status} ${JSON.stringify(prepared.body)}`);
    return env.sign(prepared.body.xdr as string, signer);
  }

  /** Prepare → sign → submit; throws unless the transaction is final. */
  async function write(path: string, body: unknown, signer: Keypair, method = 'POST'): Promise<void> {
    const signedXdr = await prepareSigned(path, body, signer, undefined, method);
    const submitted = await env.request(path, { key: await operatorKey(), body: { signedXdr }, method });
    if (submitted.status !== 200)
      throw new Error(`state: submit ${path}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  }

  /** Registers a did:ledger DID controlled by `kp` directly in the registry contract. */
  const registerDid = (kp: Keypair): Promise<string> => registerIssuerDid(env, kp);

  const key = async (wallet: Keypair, scopes: string[] = []) => (await env.mintKey({ wallet, scopes })).key;

  const issue = (
    owner: Keypair,
    issuer: Keypair,
    issuerDid: string,
    vcId: string,
    userSalt?: string,
    vcData = VC_DATA,
  ) =>
    write(
      '/contracts/vc/issue',
      {
        owner: owner.publicKey(),
        vcId,
        vcData,
        issuer: issuer.publicKey(),
        issuerDid,
        sourcePublicKey: issuer.publicKey(),
        ...(userSalt ? { userSalt } : {}),
      },
      issuer,
    );

  /** VC_DATA with the issuer named and its proof, signed with the DID's assertion key (the issuer's own key). */
  const signedVcData = async (issuer: Keypair, issuerDid: string): Promise<string> =>
    JSON.stringify(
      await signCredential({
        credential: { ...(JSON.parse(VC_DATA) as Record<string, unknown>), issuer: issuerDid },
        verificationMethod: `${issuerDid}#assert-1`,
        secretKey: issuer.rawSecretKey(),
        created: new Date(env.clock.now() - 60_000),
      }),
    );

  const createVault = (owner: Keypair, userSalt?: string) =>
    write(
      '/contracts/vault/create',
      {
        owner: owner.publicKey(),
        didUri: EXAMPLE.holderDid,
        sourcePublicKey: owner.publicKey(),
        ...(userSalt ? { userSalt } : {}),
      },
      owner,
    );

  /**
   * The owner's canonical vault holding `vcId` from the issuer; a stranger with a key and a DID but no
   * vault.
   */
  async function vaultWorld(vcId: string, { signed = false } = {}): Promise<VaultWorld> {
    const [owner, issuer, stranger] = await Promise.all([env.fund(), env.fund(), env.fund()]);
    const [ownerKey, issuerKey, strangerKey, issuerDid, strangerDid] = await Promise.all([
      key(owner),
      key(issuer),
      key(stranger),
      registerDid(issuer),
      registerDid(stranger),
    ]);
    await createVault(owner);
    await issue(owner, issuer, issuerDid, vcId, undefined, signed ? await signedVcData(issuer, issuerDid) : VC_DATA);
    return {
      owner,
      issuer,
      stranger,
      values: {
        owner: owner.publicKey(),
        ownerKey,
        issuer: issuer.publicKey(),
        issuerKey,
        issuerDid,
        vcId,
        stranger: stranger.publicKey(),
        strangerKey,
        strangerDid,
      },
    };
  }

  const access = (w: VaultWorld) => ({
    owner: w.owner.publicKey(),
    issuer: w.issuer.publicKey(),
    sourcePublicKey: w.owner.publicKey(),
  });

  async function adminWithWallet(): Promise<{ adminKey: string; wallet: Keypair }> {
    const [admin, wallet] = await Promise.all([env.fund(), env.fund()]);
    return { adminKey: (await env.mintKey({ wallet: admin, role: 'admin' })).key, wallet };
  }

  return {
    [S.apiKey]: async (params?: unknown) => {
      const wallet = await env.fund();
      const scopes = (params as { scopes?: string[] } | undefined)?.scopes ?? [];
      return { key: await key(wallet, scopes), wallet: wallet.publicKey() };
    },
    [S.adminKey]: async () => {
      const { adminKey: k, wallet } = await adminWithWallet();
      return { adminKey: k, wallet: wallet.publicKey(), factoryAdmin: env.info!.admin.publicKey };
    },
    [S.keyToRevoke]: async () => {
      const { adminKey: k, wallet } = await adminWithWallet();
      const minted = await env.mintKey({ wallet });
      return { adminKey: k, keyId: minted.record.keyId };
    },
    [S.walletWithKey]: async () => {
      const { adminKey: k, wallet } = await adminWithWallet();
      await key(wallet);
      return { adminKey: k, wallet: wallet.publicKey() };
    },
    [S.customFee]: async () => {
      const { adminKey: k, wallet: issuer } = await adminWithWallet();
      const factoryAdmin = Keypair.fromSecret(env.info!.admin.secret);
      await write(
        '/contracts/issuer-registry',
        { issuer: issuer.publicKey(), amount: '20000000', sourcePublicKey: factoryAdmin.publicKey() },
        factoryAdmin,
      );
      return { adminKey: k, factoryAdmin: factoryAdmin.publicKey(), issuer: issuer.publicKey() };
    },
    [S.signedChallenge]: async () => {
      const wallet = await env.fund();
      const challenge = await env.request(`/auth/challenge?account=${wallet.publicKey()}`);
      if (challenge.status !== 200)
        throw new Error(`state: challenge: ${challenge.status} ${JSON.stringify(challenge.body)}`);
      return { wallet: wallet.publicKey(), transaction: env.sign(challenge.body.transaction as string, wallet) };
    },
    [S.signedVaultCreate]: async () => {
      const wallet = await env.fund();
      const k = await key(wallet);
      const body = { owner: wallet.publicKey(), didUri: EXAMPLE.holderDid, sourcePublicKey: wallet.publicKey() };
      return {
        key: k,
        wallet: wallet.publicKey(),
        signedXdr: await prepareSigned('/contracts/vault/create', body, wallet, k),
      };
    },
    [S.vaultWithCredential]: once(
      S.vaultWithCredential,
      async (params?: unknown) => (await vaultWorld(paramOf(params, 'vcId', 'vc-1'))).values,
    ),
    [S.signedCredential]: once(
      S.signedCredential,
      async (params?: unknown) => (await vaultWorld(paramOf(params, 'vcId', 'vc-1'), { signed: true })).values,
    ),
    [S.revokedCredential]: once(S.revokedCredential, async (params?: unknown) => {
      const w = await vaultWorld(paramOf(params, 'vcId', 'vc-1'));
      await write(
        '/contracts/vc/revoke',
        {
          owner: w.owner.publicKey(),
          vcId: w.values['vcId'],
          date: new Date().toISOString(),
          sourcePublicKey: w.owner.publicKey(),
        },
        w.owner,
      );
      return w.values;
    }),
    [S.deniedIssuer]: once(S.deniedIssuer, async (params?: unknown) => {
      const w = await vaultWorld(paramOf(params, 'vcId', 'vc-1'));
      await write('/contracts/vault/deny-issuer', access(w), w.owner);
      return w.values;
    }),
    [S.revokedVault]: once(S.revokedVault, async (params?: unknown) => {
      const w = await vaultWorld(paramOf(params, 'vcId', 'vc-1'));
      await write(
        '/contracts/vault/revoke-vault',
        { owner: w.owner.publicKey(), sourcePublicKey: w.owner.publicKey() },
        w.owner,
      );
      return w.values;
    }),
    [S.saltedVault]: once(S.saltedVault, async () => {
      const [owner, issuer, stranger] = await Promise.all([env.fund(), env.fund(), env.fund()]);
      const [ownerKey, strangerKey, issuerDid] = await Promise.all([key(owner), key(stranger), registerDid(issuer)]);
      const userSalt = randomBytes(32).toString('hex');
      await createVault(owner);
      await createVault(owner, userSalt);
      await issue(owner, issuer, issuerDid, 'vc-2', userSalt);
      return { owner: owner.publicKey(), ownerKey, strangerKey, userSalt, vcId: 'vc-2' };
    }),
    [S.signedIssue]: async (params?: unknown) => {
      const w = await vaultWorld('vc-1');
      const vcId = paramOf(params, 'vcId', 'vc-2');
      const body = {
        owner: w.owner.publicKey(),
        vcId,
        vcData: VC_DATA,
        issuer: w.issuer.publicKey(),
        issuerDid: w.values['issuerDid'],
        sourcePublicKey: w.issuer.publicKey(),
      };
      return {
        ...w.values,
        signedXdr: await prepareSigned('/contracts/vc/issue', body, w.issuer, w.values['issuerKey'] as string),
      };
    },
    [S.signedRevoke]: async (params?: unknown) => {
      const w = await vaultWorld(paramOf(params, 'vcId', 'vc-1'));
      const body = { owner: w.owner.publicKey(), vcId: w.values['vcId'], sourcePublicKey: w.owner.publicKey() };
      return {
        ...w.values,
        signedXdr: await prepareSigned('/contracts/vc/revoke', body, w.owner, w.values['ownerKey'] as string),
      };
    },
  };
}
