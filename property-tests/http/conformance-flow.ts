// The demo's walk-through as a conformance check (scripts/demo.ts, with assertions and without a
// friendbot): two new wallets funded from a test account, API keys by wallet proof, issuer and holder DIDs
// through the resolver, a vault and a sponsored salted vault, issue, batch-issue, verify, read back, list
// and count, deny → refused → allow, push salted → canonical, revoke, revoke the salted vault → writes
// refused. Everything through the typed clients, as a user would; every step checks what it got.
import { randomBytes, randomUUID } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import {
  createResolverClient,
  createVaultClient,
  encodeMultikey,
  generateDid,
  isApiError,
  obtainApiKey,
  prepareAndSubmit,
  registerDid,
  resolveDid,
  unwrap,
  type Signer,
  type VaultClient,
} from '../../src/client/index.ts';
import { challengeSigner, walletSigner } from '../../scripts/wallet.ts';
import { createAccounts } from './model-env.ts';

export interface FlowOptions {
  vaultUrl: string;
  resolverUrl: string;
  rpcUrl: string;
  passphrase: string;
  /** A funded account that pays for the flow's two wallets. */
  funder: Keypair;
  /** Starting balance of each new wallet, native units. */
  startingBalance: string;
  log: (line: string) => void;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`conformance: ${what}`);
}

async function refused(code: string, f: () => Promise<unknown>): Promise<void> {
  try {
    await f();
  } catch (err) {
    if (isApiError(err, code)) return;
    throw err;
  }
  throw new Error(`conformance: expected ${code}, the request was accepted`);
}

export async function runConformanceFlow(o: FlowOptions): Promise<void> {
  let n = 0;
  const step = async <T>(title: string, f: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      const v = await f();
      o.log(`  ${++n}. ${title} (${Date.now() - started} ms)`);
      return v;
    } catch (err) {
      throw new Error(`step ${n + 1} "${title}" failed: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  };
  const anon = createVaultClient({ baseUrl: o.vaultUrl });
  const resolver = createResolverClient({ baseUrl: o.resolverUrl });

  const config = await step('public configuration and health', async () => {
    const c = unwrap(await anon.GET('/config'));
    check(c.networkPassphrase === o.passphrase, `/config passphrase ${c.networkPassphrase}`);
    check(c.svcContractId === c.factoryContractId, 'svcContractId is the alias of factoryContractId');
    unwrap(await anon.GET('/health'));
    unwrap(await resolver.GET('/health'));
    return c;
  });
  const network = config.networkType;
  const [issuer, holder] = [Keypair.random(), Keypair.random()];
  await step('create the issuer and holder accounts', () =>
    createAccounts({
      rpcUrl: o.rpcUrl,
      passphrase: o.passphrase,
      funder: o.funder,
      accounts: [issuer, holder],
      startingBalance: o.startingBalance,
    }),
  );
  const [signIssuer, signHolder] = [walletSigner(issuer, o.passphrase), walletSigner(holder, o.passphrase)];

  const keyFor = async (kp: Keypair): Promise<VaultClient> => {
    const key = await obtainApiKey(anon, { account: kp.publicKey(), sign: challengeSigner(kp) });
    check(
      key.wallet_address === kp.publicKey() && key.role === 'standard',
      `key bound to ${key.wallet_address} as ${key.role}`,
    );
    return createVaultClient({ baseUrl: o.vaultUrl, apiKey: key.key });
  };
  const asIssuer = await step('API key for the issuer by wallet proof', () => keyFor(issuer));
  const asHolder = await step('API key for the holder by wallet proof', () => keyFor(holder));

  const register = async (kp: Keypair, sign: Signer) => {
    const { did } = generateDid({ network });
    const key = { publicKeyMultibase: encodeMultikey('Ed25519', kp.rawPublicKey()) };
    await registerDid(
      resolver,
      {
        did,
        sourcePublicKey: kp.publicKey(),
        record: {
          controller: kp.publicKey(),
          authentication: [key],
          assertionMethod: [key],
          keyAgreement: [],
          services: [],
        },
      },
      sign,
    );
    return did;
  };
  const issuerDid = await step('register the issuer DID', () => register(issuer, signIssuer));
  await step('resolve the issuer DID', async () => {
    const { status, result } = await resolveDid(resolver, issuerDid);
    check(status === 200 && 'didDocument' in result && result.didDocument !== null, `resolution answered ${status}`);
    check(result.didDocumentMetadata.method?.stellarAccount === issuer.publicKey(), 'the controller is the issuer');
  });
  const holderDid = await step('register the holder DID', () => register(holder, signHolder));

  const vc = (type: string, subject: Record<string, unknown>) =>
    JSON.stringify({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: `urn:uuid:${randomUUID()}`,
      type: ['VerifiableCredential', type],
      issuer: issuerDid,
      credentialSubject: { id: holderDid, ...subject },
    });
  const idem = () => ({ idempotencyKey: randomUUID() });
  const owner = holder.publicKey();
  const salt = randomBytes(32).toString('hex');

  await step('create the holder vault', async () => {
    await prepareAndSubmit(
      asHolder,
      '/contracts/vault/create',
      { owner, didUri: holderDid, sourcePublicKey: owner },
      signHolder,
      idem(),
    );
    const v = unwrap(await asHolder.GET('/contracts/vault/{owner}', { params: { path: { owner } } }));
    check(v.owner === owner && v.did_uri === holderDid && v.vc_count === 0, `metadata ${JSON.stringify(v)}`);
  });
  await step('sponsor a salted vault for the holder (the issuer signs and pays)', () =>
    prepareAndSubmit(
      asIssuer,
      '/contracts/sponsored-vault/create',
      { sponsor: issuer.publicKey(), owner, didUri: holderDid, userSalt: salt, sourcePublicKey: issuer.publicKey() },
      signIssuer,
      idem(),
    ),
  );
  const issue = (vcId: string, userSalt?: string) =>
    prepareAndSubmit(
      asIssuer,
      '/contracts/vc/issue',
      {
        owner,
        vcId,
        vcData: vc('ConformanceCredential', { vcId }),
        issuer: issuer.publicKey(),
        issuerDid,
        sourcePublicKey: issuer.publicKey(),
        ...(userSalt ? { userSalt } : {}),
      },
      signIssuer,
      idem(),
    );
  const verify = async (vcId: string, userSalt?: string) =>
    unwrap(
      await asIssuer.POST('/contracts/vault/verify-vc', { body: { owner, vcId, ...(userSalt ? { userSalt } : {}) } }),
    ).status;

  await step('issue a credential', () => issue('degree'));
  await step('batch-issue three credentials', () =>
    prepareAndSubmit(
      asIssuer,
      '/contracts/vc/batch-issue',
      {
        owner,
        issuer: issuer.publicKey(),
        issuerDid,
        sourcePublicKey: issuer.publicKey(),
        vcs: ['c1', 'c2', 'c3'].map((vcId) => ({ vcId, vcData: vc('CourseCredential', { vcId }) })),
      },
      signIssuer,
      idem(),
    ),
  );
  await step('verify, read back, list and count', async () => {
    check((await verify('degree')) === 'valid', 'degree is valid');
    const { result } = unwrap(await asHolder.POST('/contracts/vault/get-vc', { body: { owner, vcId: 'degree' } }));
    check(
      (result as { credentialSubject?: { id?: string } }).credentialSubject?.id === holderDid,
      'get-vc gives the issued credential',
    );
    await refused('forbidden', async () =>
      unwrap(await asIssuer.POST('/contracts/vault/get-vc', { body: { owner, vcId: 'degree' } })),
    );
    const page = unwrap(await asHolder.POST('/contracts/vault/list-vc-ids', { body: { owner, limit: 2, offset: 1 } }));
    check(JSON.stringify(page.result) === '["c1","c2"]', `page ${JSON.stringify(page.result)}`);
    const { count } = unwrap(await asHolder.GET('/contracts/vault/vc-count', { params: { query: { owner } } }));
    check(count === 4, `count ${count}`);
  });
  const access = { owner, issuer: issuer.publicKey(), sourcePublicKey: owner };
  await step('deny the issuer: issuance refused', async () => {
    await prepareAndSubmit(asHolder, '/contracts/vault/deny-issuer', access, signHolder, idem());
    await refused('issuer_denied', () => issue('refused'));
  });
  await step('allow the issuer again: issuance works', async () => {
    await prepareAndSubmit(asHolder, '/contracts/vault/allow-issuer', access, signHolder, idem());
    await issue('late');
  });
  await step('issue into the salted vault and push it to the canonical one', async () => {
    await issue('moved', salt);
    await prepareAndSubmit(
      asHolder,
      '/contracts/vault/push',
      { fromOwner: owner, toOwner: owner, vcId: 'moved', userSalt: salt, sourcePublicKey: owner },
      signHolder,
      idem(),
    );
    check(
      (await verify('moved', salt)) === 'invalid' && (await verify('moved')) === 'valid',
      'moved: invalid at the source, valid at the destination',
    );
  });
  await step('revoke a credential', async () => {
    await prepareAndSubmit(
      asHolder,
      '/contracts/vc/revoke',
      { owner, vcId: 'c1', sourcePublicKey: owner },
      signHolder,
      idem(),
    );
    const v = unwrap(await asIssuer.POST('/contracts/vault/verify-vc', { body: { owner, vcId: 'c1' } }));
    check(v.status === 'revoked' && typeof v.since === 'string', `c1 ${JSON.stringify(v)}`);
  });
  await step('revoke the salted vault: writes refused', async () => {
    await prepareAndSubmit(
      asHolder,
      '/contracts/vault/revoke-vault',
      { owner, userSalt: salt, sourcePublicKey: owner },
      signHolder,
      idem(),
    );
    await refused('vault_revoked', () => issue('after', salt));
  });
}
