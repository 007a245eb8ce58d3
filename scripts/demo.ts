// `npm run demo`: the whole product, walked through as a user would, with the typed clients and wallet-side
// signing. Against a running `npm start` (default URLs) or, with --start, services started in-process on
// free ports with a temporary data directory. Prints one numbered line per step; exits 1 on the first
// step that fails. The testnet walk-through comes first, then a mainnet leg: the same API on the mainnet
// vault API, whose per-credential fee is paid in USDC (a classic asset wrapped as a SAC) — refused without
// a trustline, paid once the issuer's wallet holds one and some USDC.
//
//   npm run demo [-- --vault-url U --mainnet-url U --resolver-url U --simulator-url U]
//   npm run demo -- --start [--ledger-close-ms N]
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Asset, Keypair, Operation, rpc, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import {
  ApiError,
  createResolverClient,
  createVaultClient,
  encodeMultikey,
  generateDid,
  isApiError,
  obtainApiKey,
  prepareAndSubmit,
  registerDid,
  resolveDid,
  createChallenge,
  failures,
  signCredential,
  signPresentation,
  unwrap,
  verifyCredential,
  verifyPresentation,
  type LedgerVaultStatus,
  type ProofSigner,
  type CredentialType,
  type ResolverClient,
  type Signer,
  type VaultClient,
  type VaultSchemas,
} from '../src/client/index.ts';
import { challengeSigner, credentialSigner, relayedSigner, walletSigner } from './wallet.ts';

const USAGE = `usage: npm run demo -- [--start [--ledger-close-ms N]]
                     [--vault-url URL] [--mainnet-url URL] [--resolver-url URL] [--simulator-url URL]

  --start            start the simulator, both vault APIs and the resolver in-process on free ports
                     (temporary data directory), run the demo against them, stop them
  --ledger-close-ms  with --start: the simulator closes a ledger every N ms, as a network does (default 0:
                     every transaction lands at once); to try a running one: npm start -- --ledger-close-ms N
  --vault-url        testnet vault API of a running \`npm start\` (default http://127.0.0.1:3000)
  --mainnet-url      mainnet vault API of a running \`npm start\` (default http://127.0.0.1:3002)
  --resolver-url     DID resolver (default http://127.0.0.1:3001)
  --simulator-url    chain simulator, for its friendbot (default http://127.0.0.1:8000)`;

const STROOPS_PER_UNIT = 10_000_000n;
const ZERO_SALT = '0'.repeat(64);

interface Urls {
  vault: string;
  mainnet: string;
  resolver: string;
  simulator: string;
}

/** A credential in the W3C VC Data Model 2.0 shape the API requires (vcData). */
function credential(
  issuerDid: string,
  holderDid: string,
  type: string,
  subject: Record<string, unknown>,
): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', type],
    issuer: issuerDid,
    validFrom: new Date().toISOString(),
    credentialSubject: { id: holderDid, ...subject },
  };
}

/**
 * The issuer signs the credential where its key lives (its wallet): a Data Integrity proof, cryptosuite
 * eddsa-jcs-2022, made with the key its DID lists as `#assert-1`. The vault API checks the proof at issuance.
 * With `status`, the credential carries its LedgerVaultStatusEntry: any verifier reads its status on the chain.
 */
async function signedVcData(
  sign: ProofSigner,
  issuerDid: string,
  holderDid: string,
  type: string,
  subject: Record<string, unknown>,
  status?: LedgerVaultStatus,
): Promise<string> {
  const vc = await signCredential({
    credential: credential(issuerDid, holderDid, type, subject),
    verificationMethod: `${issuerDid}#assert-1`,
    signer: sign,
    created: new Date(),
    ...(status ? { ledgerVaultStatus: status } : {}),
  });
  return JSON.stringify(vc);
}

/** A verification's results on one line: `proof passed, credentialStatus valid, issuerAllowed passed, …`. */
const checks = (r: VaultSchemas['VerifyCredentialResult']) => {
  const res = r.results ?? {};
  const parts = [
    ...(res.proof ? [`proof ${res.proof.every((p) => p.verified) ? 'passed' : 'failed'}`] : []),
    ...(['validFrom', 'validUntil'] as const).flatMap((k) =>
      res[k] ? [`${k} ${res[k].verified ? 'passed' : 'failed'}`] : [],
    ),
    ...(res.credentialStatus
      ? [`credentialStatus ${res.credentialStatus.map((s) => s.status ?? 'unread').join('/') || 'not checked'}`]
      : []),
    ...(['issuerDid', 'issuerAllowed'] as const).flatMap((k) => (res[k] ? [`${k} ${res[k].outcome}`] : [])),
  ];
  return parts.join(', ');
};

/** G…/C… addresses and hashes as `GA7HWB…CZFG`; DIDs keep their method and network: `did:ledger:testnet:zexe…lmsu`. */
const short = (s: string) => {
  const did = /^(did:[a-z0-9]+:[a-z]+:)(.+)$/.exec(s);
  if (did) return did[2]!.length > 10 ? `${did[1]}${did[2]!.slice(0, 4)}…${did[2]!.slice(-4)}` : s;
  return s.length > 16 ? `${s.slice(0, 6)}…${s.slice(-4)}` : s;
};
const units = (stroops: bigint) => {
  const sign = stroops < 0n ? '-' : '';
  const abs = stroops < 0n ? -stroops : stroops;
  const frac = (abs % STROOPS_PER_UNIT).toString().padStart(7, '0').replace(/0+$/, '');
  return `${sign}${abs / STROOPS_PER_UNIT}${frac ? `.${frac}` : ''}`;
};

/** Native balance of an account through the network's Soroban RPC (getLedgerEntries), in stroops. */
async function nativeBalance(rpcUrl: string, account: string): Promise<bigint> {
  const key = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(account).xdrPublicKey() }),
  );
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getLedgerEntries',
      params: { keys: [key.toXdr('base64')] },
    }),
  });
  const body = (await res.json()) as { result?: { entries: { xdr: string }[] }; error?: { message: string } };
  if (!body.result) throw new Error(`getLedgerEntries: ${body.error?.message ?? `HTTP ${res.status}`}`);
  const entry = body.result.entries[0];
  if (!entry) throw new Error(`account ${account} not found on the ledger`);
  const data = xdr.LedgerEntryData.fromXdr(entry.xdr, 'base64');
  if (data.type !== 'account') throw new Error(`ledger entry of ${account} is ${data.type}, not an account`);
  return data.account.balance;
}

/** A new account funded by the network's friendbot. */
async function friendbot(simulatorUrl: string, network: string): Promise<{ kp: Keypair; hash: string }> {
  const kp = Keypair.random();
  const res = await fetch(`${simulatorUrl}/${network}/friendbot?addr=${kp.publicKey()}`);
  const body = (await res.json()) as { hash?: string; detail?: string };
  if (!res.ok || !body.hash) throw new Error(`friendbot: HTTP ${res.status} ${body.detail ?? ''}`.trim());
  return { kp, hash: body.hash };
}

/** Runs `fn` and requires it to fail with the API error `code`. */
async function refused(code: string, fn: () => Promise<unknown>): Promise<ApiError> {
  try {
    await fn();
  } catch (err) {
    if (isApiError(err, code)) return err;
    throw err;
  }
  throw new Error(`expected the API to refuse with ${code}, but it accepted`);
}

/** Registers a new DID controlled by the wallet, its Ed25519 key for authentication and assertion (an issuer needs both). */
async function registerWalletDid(
  resolver: ResolverClient,
  network: 'testnet' | 'mainnet',
  kp: Keypair,
  sign: Signer,
): Promise<{ did: string; key: string; txId: string }> {
  const { did } = generateDid({ network });
  const key = { publicKeyMultibase: encodeMultikey('Ed25519', kp.rawPublicKey()) };
  const { txId } = await registerDid(
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
  return { did, key: key.publicKeyMultibase, txId };
}

class StepFailed extends Error {}

/** One line about a failure: the API's code and request id, or the network error and its cause. */
function describe(err: unknown): string {
  if (err instanceof ApiError) return `${err.toString()}${err.requestId ? ` [request ${err.requestId}]` : ''}`;
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}

function stepper(out: (line: string) => void) {
  let n = 0;
  return async <T>(title: string, fn: () => Promise<[T, string]>): Promise<T> => {
    n += 1;
    const started = Date.now();
    try {
      const [value, facts] = await fn();
      out(`${n}. ${title}: ${facts} (${Date.now() - started} ms)`);
      return value;
    } catch (err) {
      throw new StepFailed(`${n}. ${title}: FAILED: ${describe(err)}`);
    }
  };
}

type Step = ReturnType<typeof stepper>;

async function runDemo(urls: Urls, out: (line: string) => void = console.log): Promise<void> {
  const step = stepper(out);
  const testnetPassphrase = await testnetLeg(urls, step);
  await mainnetLeg(urls, step, testnetPassphrase);
}

/** The whole product on testnet (fees in the native asset). Returns the testnet passphrase. */
async function testnetLeg(urls: Urls, step: Step): Promise<string> {
  const anon = createVaultClient({ baseUrl: urls.vault });
  const resolver: ResolverClient = createResolverClient({ baseUrl: urls.resolver });

  const config = await step('connect', async () => {
    const c = unwrap(await anon.GET('/config'));
    const health = unwrap(await resolver.GET('/health'));
    return [
      c,
      `vault API ${urls.vault} (${c.networkType}, Protocol ${c.protocolVersion}, factory ${short(c.factoryContractId)}), resolver ${urls.resolver} (${health.networks.map((n) => n.network).join(', ')})`,
    ];
  });
  const network = config.networkType;
  const passphrase = config.networkPassphrase;

  const issuer = await step('create issuer account', async () => {
    const a = await friendbot(urls.simulator, network);
    return [a.kp, `${a.kp.publicKey()} funded by friendbot (tx ${short(a.hash)})`];
  });
  const holder = await step('create holder account', async () => {
    const a = await friendbot(urls.simulator, network);
    return [a.kp, `${a.kp.publicKey()} funded by friendbot (tx ${short(a.hash)})`];
  });
  const relayer = await step('create relayer account', async () => {
    const a = await friendbot(urls.simulator, network);
    return [
      a.kp,
      `${a.kp.publicKey()} funded by friendbot (tx ${short(a.hash)}): pays for the holder's relayed writes`,
    ];
  });
  const signIssuer = walletSigner(issuer, passphrase);
  const signHolder = walletSigner(holder, passphrase);
  const signProof = credentialSigner(issuer);
  // The relayed writes: the holder authorizes with SDK 17, the relayer pays. Prepare asks for V2 entries
  // (useUpgradedAuth), which a Protocol 27 or 28 network returns; an older one returns legacy entries.
  const latestLedger = async () => (await rpcCall<{ sequence: number }>(config.rpcUrl, 'getLatestLedger')).sequence;
  const expected: CredentialType = config.protocolVersion >= 27 ? 'addressV2' : 'address';
  const relayedByHolder = (): { sign: Signer; seen: () => string } => {
    let types: CredentialType[] = [];
    const sign = relayedSigner({
      authorizer: holder,
      relayer,
      expectedPassphrase: passphrase,
      validUntilLedger: async () => (await latestLedger()) + 100,
      seen: (t) => {
        if (t.length === 0 || t.some((x) => x !== expected)) {
          throw new Error(
            `prepare returned ${JSON.stringify(t)} entries for the holder; a Protocol ${config.protocolVersion} network returns ${expected}`,
          );
        }
        types = t;
      },
    });
    return {
      sign,
      seen: () =>
        `holder signed ${types.length} ${types.join(', ')} entr${types.length === 1 ? 'y' : 'ies'} (SDK 17 authorizeEntry), relayer ${short(relayer.publicKey())} signed and paid`,
    };
  };

  const apiKey = async (kp: Keypair) => {
    const key = await obtainApiKey(anon, { account: kp.publicKey(), sign: challengeSigner(kp) });
    return [
      key,
      `key ${key.key_id} (${key.role}, ${key.scopes.length ? key.scopes.join(',') : 'all scopes'}, expires ${key.expires_at}) for ${short(key.wallet_address)}`,
    ] as [VaultSchemas['ApiKeyCreated'], string];
  };
  const issuerKey = await step('API key for issuer (challenge → sign → /auth/keys)', () => apiKey(issuer));
  const holderKey = await step('API key for holder (challenge → sign → /auth/keys)', () => apiKey(holder));
  const asIssuer: VaultClient = createVaultClient({ baseUrl: urls.vault, apiKey: issuerKey.key });
  const asHolder: VaultClient = createVaultClient({ baseUrl: urls.vault, apiKey: holderKey.key });

  const register = async (kp: Keypair, sign: Signer) => {
    const { did, key, txId } = await registerWalletDid(resolver, network, kp, sign);
    return [did, `${did} (controller ${short(kp.publicKey())}, key ${short(key)}, tx ${short(txId)})`] as [
      string,
      string,
    ];
  };
  const issuerDid = await step('register issuer DID (prepare → sign → submit)', () => register(issuer, signIssuer));
  await step('resolve issuer DID', async () => {
    const { status, result } = await resolveDid(resolver, issuerDid);
    if (status !== 200 || !result.didDocument)
      throw new Error(`resolution answered ${status}: ${JSON.stringify(result.didResolutionMetadata)}`);
    const meta = result.didDocumentMetadata;
    if (meta.method.stellarAccount !== issuer.publicKey())
      throw new Error(`controller is ${meta.method.stellarAccount}, expected the issuer`);
    const methods = (result.didDocument.verificationMethod ?? []).map((m) => m.id.slice(m.id.indexOf('#')));
    return [
      undefined,
      `${status}, version ${meta.versionId}, controller ${short(meta.method.stellarAccount)}, methods ${methods.join(' ')}`,
    ];
  });
  const holderDid = await step('register holder DID (prepare → sign → submit)', () => register(holder, signHolder));

  const fee = await step('fee quote and balances before', async () => {
    const quote = unwrap(
      await asIssuer.GET('/contracts/issuer-registry/{issuer}', { params: { path: { issuer: issuer.publicKey() } } }),
    );
    const nativeToken = Asset.native().contractId(passphrase);
    if (!quote.enabled || quote.token !== nativeToken || !quote.dest?.startsWith('G')) {
      throw new Error(`this demo reads native balances; the fee here is ${JSON.stringify(quote)}`);
    }
    const before = {
      issuer: await nativeBalance(config.rpcUrl, issuer.publicKey()),
      dest: await nativeBalance(config.rpcUrl, quote.dest),
    };
    return [
      { amount: BigInt(quote.amount), dest: quote.dest, before },
      `${units(BigInt(quote.amount))} native units per credential to ${short(quote.dest)}; issuer holds ${units(before.issuer)}`,
    ];
  });

  const vaultOf = async (client: VaultClient, owner: string, userSalt = ZERO_SALT) =>
    unwrap(await client.GET('/contracts/vault/{owner}', { params: { path: { owner }, query: { userSalt } } }));

  await step('create holder vault (holder signs)', async () => {
    const { txId } = await prepareAndSubmit(
      asHolder,
      '/contracts/vault/create',
      { owner: holder.publicKey(), didUri: holderDid, sourcePublicKey: holder.publicKey() },
      signHolder,
      { idempotencyKey: randomUUID() },
    );
    const v = await vaultOf(asHolder, holder.publicKey());
    return [undefined, `vault ${v.vault_address} (v${v.version}, did ${short(v.did_uri)}), tx ${short(txId)}`];
  });

  const salt = randomBytes(32).toString('hex');
  await step('sponsor a salted vault for the holder (issuer signs and pays)', async () => {
    const { txId } = await prepareAndSubmit(
      asIssuer,
      '/contracts/sponsored-vault/create',
      {
        sponsor: issuer.publicKey(),
        owner: holder.publicKey(),
        didUri: holderDid,
        userSalt: salt,
        sourcePublicKey: issuer.publicKey(),
      },
      signIssuer,
      { idempotencyKey: randomUUID() },
    );
    const v = await vaultOf(asHolder, holder.publicKey(), salt);
    return [undefined, `vault ${v.vault_address} owned by ${short(v.owner)} at salt ${short(salt)}, tx ${short(txId)}`];
  });

  const run = randomBytes(3).toString('hex');
  let issued = 0n;
  // Each credential carries its LedgerVaultStatusEntry: the vault it goes into and its vcId.
  const statusIn = async (vcId: string, userSalt?: string): Promise<LedgerVaultStatus> => ({
    network,
    vaultContract: (await vaultOf(asHolder, holder.publicKey(), userSalt)).vault_address,
    vcId,
    contextUrl: `${urls.vault}/contexts/ledger-vault/v1`,
  });
  const issue = async (vcId: string, type: string, subject: Record<string, unknown>, userSalt?: string) => {
    const vcData = await signedVcData(signProof, issuerDid, holderDid, type, subject, await statusIn(vcId, userSalt));
    const { txId } = await prepareAndSubmit(
      asIssuer,
      '/contracts/vc/issue',
      {
        owner: holder.publicKey(),
        vcId,
        vcData,
        issuer: issuer.publicKey(),
        issuerDid,
        sourcePublicKey: issuer.publicKey(),
        ...(userSalt ? { userSalt } : {}),
      },
      signIssuer,
      { idempotencyKey: randomUUID() },
    );
    issued += 1n;
    return txId;
  };

  const degreeId = `degree-${run}`;
  await step('issue a credential', async () => {
    const txId = await issue(degreeId, 'UniversityDegreeCredential', {
      degree: { type: 'BachelorDegree', name: 'Bachelor of Science in Mathematics' },
    });
    return [
      undefined,
      `${degreeId} into the holder's vault, signed by the issuer (eddsa-jcs-2022, ${short(issuerDid)}#assert-1), tx ${short(txId)}`,
    ];
  });

  const courseIds = [1, 2, 3].map((i) => `course-${run}-${i}`);
  await step('batch-issue credentials', async () => {
    const { txId } = await prepareAndSubmit(
      asIssuer,
      '/contracts/vc/batch-issue',
      {
        owner: holder.publicKey(),
        issuer: issuer.publicKey(),
        issuerDid,
        sourcePublicKey: issuer.publicKey(),
        vcs: await Promise.all(
          courseIds.map(async (vcId, i) => ({
            vcId,
            vcData: await signedVcData(
              signProof,
              issuerDid,
              holderDid,
              'CourseCompletionCredential',
              { course: `Linear Algebra ${i + 1}` },
              await statusIn(vcId),
            ),
          })),
        ),
      },
      signIssuer,
      { idempotencyKey: randomUUID() },
    );
    issued += BigInt(courseIds.length);
    return [undefined, `${courseIds.join(', ')} in one transaction, tx ${short(txId)}`];
  });

  const verify = async (vcId: string, userSalt?: string) =>
    unwrap(
      await asIssuer.POST('/contracts/vault/verify-vc', {
        body: { owner: holder.publicKey(), vcId, ...(userSalt ? { userSalt } : {}) },
      }),
    );

  await step('verify a credential', async () => {
    const v = await verify(degreeId);
    if (v.status !== 'valid') throw new Error(`status ${v.status}, expected valid`);
    return [undefined, `${degreeId} is ${v.status}`];
  });

  const presented = await step('read a credential (decrypted)', async () => {
    const { result } = unwrap(
      await asHolder.POST('/contracts/vault/get-vc', { body: { owner: holder.publicKey(), vcId: degreeId } }),
    );
    const vc = result as unknown as {
      type: string[];
      issuer: string;
      credentialSubject: { id: string; degree?: { name?: string } };
    };
    if (vc.issuer !== issuerDid || vc.credentialSubject.id !== holderDid)
      throw new Error(`unexpected credential ${JSON.stringify(vc)}`);
    return [
      result,
      `${vc.type.join('/')} from ${short(vc.issuer)} to ${short(vc.credentialSubject.id)}: "${vc.credentialSubject.degree?.name}"`,
    ];
  });

  // A verifier: someone the holder shows a credential to. Without a key it checks a presented credential,
  // its status and issuer access read on the chain through the credential's LedgerVaultStatusEntry.
  const anonVerifier = createVaultClient({ baseUrl: urls.vault });
  await step('verifier: check a presented credential (no API key)', async () => {
    const r = await verifyCredential(anonVerifier, { verifiableCredential: presented });
    if (!r.verified) throw new Error(`not verified: ${JSON.stringify(failures(r))}`);
    return [undefined, `verified: ${r.verified} (${checks(r)})`];
  });
  const asVerifier = await step('verifier: account and API key', async () => {
    const a = await friendbot(urls.simulator, network);
    const key = await obtainApiKey(anon, { account: a.kp.publicKey(), sign: challengeSigner(a.kp) });
    return [
      createVaultClient({ baseUrl: urls.vault, apiKey: key.key }),
      `${short(a.kp.publicKey())} with key ${key.key_id}`,
    ];
  });
  await step('verifier: a presentation over its challenge (holder signs with its DID key), once', async () => {
    const challenge = await createChallenge(asVerifier);
    const vp = await signPresentation({
      presentation: { holder: holderDid, verifiableCredential: [presented] },
      verificationMethod: `${holderDid}#auth-1`,
      challenge,
      domain: 'verifier.example',
      signer: credentialSigner(holder),
      created: new Date(),
    });
    const body = { verifiablePresentation: vp, options: { challenge, domain: 'verifier.example' } };
    const r = await verifyPresentation(asVerifier, body);
    if (!r.verified) throw new Error(`not verified: ${JSON.stringify(r)}`);
    const replay = await verifyPresentation(asVerifier, body);
    const spent = failures(replay).find((p) => p.reason === 'challenge_unknown');
    if (replay.verified || !spent) throw new Error(`the replay verified: ${JSON.stringify(replay)}`);
    return [
      undefined,
      `holder ${short(holderDid)} bound, credential verified: ${r.verified}; the same presentation again: ${spent.title} (${spent.reason})`,
    ];
  });
  await step('holder: check a credential in its own vault by reference (owner + vcId)', async () => {
    const r = await verifyCredential(asHolder, { owner: holder.publicKey(), vcId: degreeId });
    if (!r.verified) throw new Error(`not verified: ${JSON.stringify(failures(r))}`);
    const stranger = await asVerifier.POST('/credentials/verify', {
      body: { owner: holder.publicKey(), vcId: degreeId },
    });
    if (stranger.response.status !== 403)
      throw new Error(`another wallet's key verified by reference: ${stranger.response.status}`);
    return [undefined, `${degreeId} verified: ${r.verified} (${checks(r)}); another wallet's key: 403`];
  });

  await step('list and count', async () => {
    const page = unwrap(
      await asHolder.POST('/contracts/vault/list-vc-ids', { body: { owner: holder.publicKey(), limit: 50 } }),
    );
    const { count } = unwrap(
      await asHolder.GET('/contracts/vault/vc-count', { params: { query: { owner: holder.publicKey() } } }),
    );
    const want = [degreeId, ...courseIds];
    if (count !== want.length || want.some((id) => !page.result.includes(id)))
      throw new Error(`listed ${JSON.stringify(page.result)}, count ${count}`);
    return [undefined, `${count} active: ${page.result.join(', ')}`];
  });

  const access = { owner: holder.publicKey(), issuer: issuer.publicKey(), sourcePublicKey: holder.publicKey() };
  await step('deny the issuer (relayed: holder authorizes, relayer pays)', async () => {
    const relayed = relayedByHolder();
    const { txId } = await prepareAndSubmit(
      asHolder,
      '/contracts/vault/deny-issuer',
      { ...access, sourcePublicKey: relayer.publicKey() },
      relayed.sign,
      { idempotencyKey: randomUUID() },
    );
    const denied = unwrap(
      await asHolder.GET('/contracts/vault/issuers/denied', { params: { query: { owner: holder.publicKey() } } }),
    );
    if (!denied.issuers.includes(issuer.publicKey())) throw new Error(`denied list ${JSON.stringify(denied.issuers)}`);
    return [undefined, `denied issuers: ${denied.issuers.map(short).join(', ')}; ${relayed.seen()}, tx ${short(txId)}`];
  });

  await step('issuance refused while denied', async () => {
    const err = await refused('issuer_denied', () =>
      issue(`refused-${run}`, 'UniversityDegreeCredential', { note: 'must not land' }),
    );
    return [undefined, `${err.status} ${err.code}`];
  });

  const lateId = `late-${run}`;
  await step('allow the issuer again and issue', async () => {
    const { txId } = await prepareAndSubmit(asHolder, '/contracts/vault/allow-issuer', access, signHolder, {
      idempotencyKey: randomUUID(),
    });
    const issueTx = await issue(lateId, 'CourseCompletionCredential', { course: 'Topology' });
    return [undefined, `allowed (tx ${short(txId)}); ${lateId} issued, tx ${short(issueTx)}`];
  });

  const movedId = `moved-${run}`;
  await step('issue into the salted vault', async () => {
    const txId = await issue(movedId, 'MembershipCredential', { member: 'Mathematical Society' }, salt);
    return [undefined, `${movedId} at salt ${short(salt)}, tx ${short(txId)}`];
  });

  await step('push from the salted vault to the canonical vault (holder signs)', async () => {
    const { txId } = await prepareAndSubmit(
      asHolder,
      '/contracts/vault/push',
      {
        fromOwner: holder.publicKey(),
        toOwner: holder.publicKey(),
        vcId: movedId,
        userSalt: salt,
        sourcePublicKey: holder.publicKey(),
      },
      signHolder,
      { idempotencyKey: randomUUID() },
    );
    const [source, dest] = [await verify(movedId, salt), await verify(movedId)];
    if (source.status !== 'invalid' || dest.status !== 'valid')
      throw new Error(`after push: source ${source.status}, destination ${dest.status}`);
    return [undefined, `${movedId}: salted vault ${source.status}, canonical vault ${dest.status}, tx ${short(txId)}`];
  });

  await step('revoke a credential (relayed: holder authorizes, relayer pays)', async () => {
    const relayed = relayedByHolder();
    const { txId } = await prepareAndSubmit(
      asHolder,
      '/contracts/vc/revoke',
      { owner: holder.publicKey(), vcId: courseIds[0]!, sourcePublicKey: relayer.publicKey() },
      relayed.sign,
      { idempotencyKey: randomUUID() },
    );
    const v = await verify(courseIds[0]!);
    if (v.status !== 'revoked' || !v.since)
      throw new Error(`status ${v.status} since ${v.since}, expected revoked with a date`);
    return [undefined, `${courseIds[0]} is ${v.status} since ${v.since}; ${relayed.seen()}, tx ${short(txId)}`];
  });

  await step('verifier: the revoked credential no longer verifies', async () => {
    const { result } = unwrap(
      await asHolder.POST('/contracts/vault/get-vc', { body: { owner: holder.publicKey(), vcId: courseIds[0]! } }),
    );
    const r = await verifyCredential(anonVerifier, { verifiableCredential: result });
    const failed = failures(r).find((p) => p.check === 'credentialStatus');
    if (r.verified || failed?.reason !== 'revoked')
      throw new Error(`expected verified: false with status revoked, got ${JSON.stringify(r)}`);
    return [undefined, `${courseIds[0]} presented: verified ${r.verified}, ${failed.title}: ${failed.detail}`];
  });

  await step('revoke the salted vault (holder signs)', async () => {
    const { txId } = await prepareAndSubmit(
      asHolder,
      '/contracts/vault/revoke-vault',
      { owner: holder.publicKey(), userSalt: salt, sourcePublicKey: holder.publicKey() },
      signHolder,
      { idempotencyKey: randomUUID() },
    );
    return [undefined, `vault at salt ${short(salt)} revoked, tx ${short(txId)}`];
  });

  await step('write into the revoked vault refused', async () => {
    const err = await refused('vault_revoked', () =>
      issue(`after-revoke-${run}`, 'MembershipCredential', { member: 'none' }, salt),
    );
    return [undefined, `${err.status} ${err.code}`];
  });

  await step('fees paid', async () => {
    const after = {
      issuer: await nativeBalance(config.rpcUrl, issuer.publicKey()),
      dest: await nativeBalance(config.rpcUrl, fee.dest),
    };
    const credentialFees = fee.amount * issued;
    const received = after.dest - fee.before.dest;
    const spent = fee.before.issuer - after.issuer;
    if (received < credentialFees)
      throw new Error(`the fee destination received ${units(received)}, expected at least ${units(credentialFees)}`);
    return [
      undefined,
      `issuer ${units(fee.before.issuer)} → ${units(after.issuer)} (spent ${units(spent)}): ${issued} credentials × ${units(fee.amount)} = ${units(credentialFees)} in issuance fees + ${units(spent - credentialFees)} in network fees; ${short(fee.dest)} received ${units(received)}`,
    ];
  });
  return passphrase;
}

/** What the simulator's `sim_info` tells about a network (the fields the mainnet leg reads). */
interface SimInfo {
  passphrase: string;
  feeTokenId: string;
  feeAmount: string;
  stablecoin?: { code: string; issuer: string };
  /** The test asset issuer's secret: the simulator's, so that the demo can hand out USDC. */
  stablecoinIssuerSecret?: string;
}

/** A JSON-RPC call the SDK's rpc.Server has no method for (the simulator's cheats). */
async function rpcCall<T>(rpcUrl: string, method: string, params: unknown = {}): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? `HTTP ${res.status}`}`);
  return body.result;
}

/** Balance of `asset` on an account's trustline (getLedgerEntries of the trustline), in stroops; undefined without one. */
async function trustlineBalance(server: rpc.Server, account: string, asset: Asset): Promise<bigint | undefined> {
  const key = xdr.LedgerKey.trustline(
    new xdr.LedgerKeyTrustLine({
      accountId: Keypair.fromPublicKey(account).xdrPublicKey(),
      asset: asset.toTrustLineXDRObject(),
    }),
  );
  const { entries } = await server.getLedgerEntries(key);
  const val = entries[0]?.val;
  return val?.type === 'trustline' ? val.trustLine.balance : undefined;
}

/**
 * A wallet action that is no API route: a classic transaction from `source`, signed by the wallet (which
 * refuses any other passphrase), sent with rpc.Server.sendTransaction and polled until final. Returns its hash.
 */
async function sendClassic(
  server: rpc.Server,
  passphrase: string,
  source: Keypair,
  sign: Signer,
  op: xdr.Operation,
): Promise<string> {
  const account = await server.getAccount(source.publicKey());
  const unsigned = new TransactionBuilder(account, { fee: '100', networkPassphrase: passphrase })
    .addOperation(op)
    .setTimeout(60)
    .build();
  const signed = TransactionBuilder.fromXdr(await sign(unsigned.toXdr(), passphrase), passphrase);
  // A network takes one transaction per source account at a time: TRY_AGAIN_LATER means send it again shortly.
  let sent = await server.sendTransaction(signed);
  for (let tries = 0; sent.status === 'TRY_AGAIN_LATER' && tries < 60; tries++) {
    await new Promise((r) => setTimeout(r, 500));
    sent = await server.sendTransaction(signed);
  }
  if (sent.status !== 'PENDING') {
    const codes = sent.errorResult ? ` (${sent.errorResult.result.type})` : '';
    throw new Error(`sendTransaction answered ${sent.status}${codes}`);
  }
  // NOT_FOUND until its ledger closes: about 5 s on a real network, at once on the simulator by default.
  const final = await server.pollTransaction(sent.hash, { attempts: 120, sleepStrategy: () => 250 });
  if (final.status !== rpc.Api.GetTransactionStatus.SUCCESS)
    throw new Error(`transaction ${sent.hash} is ${final.status}`);
  return sent.hash;
}

/**
 * The same API on mainnet, one process per network: its own passphrase, accounts, keys and DIDs, and a fee
 * token that is not the native asset but USDC. The issuer is refused until its wallet holds a USDC trustline
 * and a balance; then a credential is issued, verified, and the fee shows on the trustline.
 */
async function mainnetLeg(urls: Urls, step: Step, testnetPassphrase: string): Promise<void> {
  const anon = createVaultClient({ baseUrl: urls.mainnet });
  const resolver: ResolverClient = createResolverClient({ baseUrl: urls.resolver });

  const { config, server, usdc, usdcIssuerId, usdcIssuerSecret, feeTokenId } = await step(
    'mainnet: connect',
    async () => {
      const c = unwrap(await anon.GET('/config'));
      if (c.networkType !== 'mainnet')
        throw new Error(`${urls.mainnet} serves ${c.networkType}, not mainnet (--mainnet-url)`);
      if (c.networkPassphrase === testnetPassphrase) throw new Error('mainnet and testnet share a passphrase');
      const srv = new rpc.Server(c.rpcUrl, { allowHttp: c.rpcUrl.startsWith('http://') });
      // The wallet checks the passphrase with the network's own RPC, not only with what the API says.
      const { passphrase } = await srv.getNetwork();
      if (passphrase !== c.networkPassphrase)
        throw new Error(`the RPC ${c.rpcUrl} is on "${passphrase}", the API on "${c.networkPassphrase}"`);
      const info = await rpcCall<SimInfo>(c.rpcUrl, 'sim_info');
      if (!info.stablecoin || !info.stablecoinIssuerSecret)
        throw new Error(`the simulator's mainnet has no stablecoin: ${JSON.stringify(info)}`);
      const asset = new Asset(info.stablecoin.code, info.stablecoin.issuer);
      if (info.feeTokenId !== asset.contractId(passphrase))
        throw new Error(`fee token ${info.feeTokenId} is not the ${asset.toString()} SAC`);
      return [
        {
          config: c,
          server: srv,
          usdc: asset,
          usdcIssuerId: info.stablecoin.issuer,
          usdcIssuerSecret: info.stablecoinIssuerSecret,
          feeTokenId: info.feeTokenId,
        },
        `vault API ${urls.mainnet} (${c.networkType}, passphrase "${c.networkPassphrase}", factory ${short(c.factoryContractId)}); fee token ${asset.code}:${short(info.stablecoin.issuer)} (SAC ${short(info.feeTokenId)}), ${units(BigInt(info.feeAmount))} ${asset.code} per credential`,
      ];
    },
  );
  const passphrase = config.networkPassphrase;
  const network = config.networkType;

  const account = async (role: string) => {
    const a = await friendbot(urls.simulator, network);
    return [
      a.kp,
      `${role} ${a.kp.publicKey()} funded with XLM by the simulator's mainnet friendbot (tx ${short(a.hash)}); no USDC trustline`,
    ] as [Keypair, string];
  };
  const issuer = await step('mainnet: create issuer account', () => account('issuer'));
  const holder = await step('mainnet: create holder account', () => account('holder'));
  const signIssuer = walletSigner(issuer, passphrase);
  const signHolder = walletSigner(holder, passphrase);

  const apiKey = async (kp: Keypair) => {
    const key = await obtainApiKey(anon, { account: kp.publicKey(), sign: challengeSigner(kp) });
    return [key, `key ${key.key_id} (${key.role}) for ${short(key.wallet_address)}, valid on mainnet only`] as [
      VaultSchemas['ApiKeyCreated'],
      string,
    ];
  };
  const issuerKey = await step('mainnet: API key for issuer (challenge → sign → /auth/keys)', () => apiKey(issuer));
  const holderKey = await step('mainnet: API key for holder (challenge → sign → /auth/keys)', () => apiKey(holder));
  const asIssuer: VaultClient = createVaultClient({ baseUrl: urls.mainnet, apiKey: issuerKey.key });
  const asHolder: VaultClient = createVaultClient({ baseUrl: urls.mainnet, apiKey: holderKey.key });

  const register = async (kp: Keypair, sign: Signer) => {
    const { did, txId } = await registerWalletDid(resolver, network, kp, sign);
    const { status, result } = await resolveDid(resolver, did);
    if (status !== 200 || result.didDocumentMetadata.method.stellarAccount !== kp.publicKey())
      throw new Error(`${did} resolves with ${status}: ${JSON.stringify(result.didResolutionMetadata)}`);
    return [did, `${did} (controller ${short(kp.publicKey())}, tx ${short(txId)}), resolves: ${status}`] as [
      string,
      string,
    ];
  };
  const issuerDid = await step('mainnet: register issuer DID (prepare → sign → submit)', () =>
    register(issuer, signIssuer),
  );
  const holderDid = await step('mainnet: register holder DID (prepare → sign → submit)', () =>
    register(holder, signHolder),
  );

  await step('mainnet: create holder vault (holder signs)', async () => {
    const { txId } = await prepareAndSubmit(
      asHolder,
      '/contracts/vault/create',
      { owner: holder.publicKey(), didUri: holderDid, sourcePublicKey: holder.publicKey() },
      signHolder,
      { idempotencyKey: randomUUID() },
    );
    const v = unwrap(
      await asHolder.GET('/contracts/vault/{owner}', {
        params: { path: { owner: holder.publicKey() }, query: { userSalt: ZERO_SALT } },
      }),
    );
    return [undefined, `vault ${v.vault_address} (v${v.version}, did ${short(v.did_uri)}), tx ${short(txId)}`];
  });

  const fee = await step('mainnet: fee quote', async () => {
    const quote = unwrap(
      await asIssuer.GET('/contracts/issuer-registry/{issuer}', { params: { path: { issuer: issuer.publicKey() } } }),
    );
    if (!quote.enabled || quote.token !== feeTokenId || !quote.dest?.startsWith('G'))
      throw new Error(`expected a fee in ${usdc.code} (${feeTokenId}), the quote is ${JSON.stringify(quote)}`);
    const line = await trustlineBalance(server, issuer.publicKey(), usdc);
    if (line !== undefined) throw new Error(`the new issuer already holds a ${usdc.code} trustline`);
    return [
      { amount: BigInt(quote.amount), dest: quote.dest },
      `${units(BigInt(quote.amount))} ${usdc.code} (token ${short(quote.token)}) per credential to ${short(quote.dest)}; the issuer has no ${usdc.code} trustline`,
    ];
  });

  const run = randomBytes(3).toString('hex');
  const issue = async (vcId: string) => {
    const { txId } = await prepareAndSubmit(
      asIssuer,
      '/contracts/vc/issue',
      {
        owner: holder.publicKey(),
        vcId,
        vcData: await signedVcData(credentialSigner(issuer), issuerDid, holderDid, 'UniversityDegreeCredential', {
          degree: { type: 'MasterDegree', name: 'Master of Science in Mathematics' },
        }),
        issuer: issuer.publicKey(),
        issuerDid,
        sourcePublicKey: issuer.publicKey(),
      },
      signIssuer,
      { idempotencyKey: randomUUID() },
    );
    return txId;
  };
  const degreeId = `mainnet-degree-${run}`;

  await step('mainnet: issuance refused without a USDC trustline', async () => {
    const err = await refused('trustline_missing', () => issue(degreeId));
    if (!/trustline entry is missing for account/.test(err.message))
      throw new Error(`the message lost the chain's words: ${err.message}`);
    return [undefined, `${err.status} ${err.code}: "${err.message}"`];
  });

  await step(`mainnet: issuer's wallet adds a USDC trustline (changeTrust → rpc sendTransaction)`, async () => {
    const hash = await sendClassic(server, passphrase, issuer, signIssuer, Operation.changeTrust({ asset: usdc }));
    const balance = await trustlineBalance(server, issuer.publicKey(), usdc);
    if (balance !== 0n) throw new Error(`after changeTrust the trustline holds ${balance}`);
    return [
      undefined,
      `trustline ${usdc.code}:${short(usdcIssuerId)} for ${short(issuer.publicKey())}, balance 0, tx ${short(hash)} (a wallet action on the network's RPC, no API route)`,
    ];
  });

  const funding = 10n * STROOPS_PER_UNIT;
  const before = await step('mainnet: issuer receives USDC from the asset issuer', async () => {
    const usdcIssuer = Keypair.fromSecret(usdcIssuerSecret);
    if (usdcIssuer.publicKey() !== usdcIssuerId)
      throw new Error(`sim_info's issuer secret is for ${usdcIssuer.publicKey()}, not ${usdc.issuer}`);
    const hash = await sendClassic(
      server,
      passphrase,
      usdcIssuer,
      walletSigner(usdcIssuer, passphrase),
      Operation.payment({ destination: issuer.publicKey(), asset: usdc, amount: units(funding) }),
    );
    const balances = {
      issuer: (await trustlineBalance(server, issuer.publicKey(), usdc)) ?? 0n,
      dest: (await trustlineBalance(server, fee.dest, usdc)) ?? 0n,
    };
    if (balances.issuer !== funding)
      throw new Error(`the issuer holds ${units(balances.issuer)} ${usdc.code}, expected ${units(funding)}`);
    return [
      balances,
      `${units(funding)} ${usdc.code} paid by ${short(usdcIssuerId)} with the simulator's test-asset secret (sim_info), tx ${short(hash)}; on a real network you would acquire USDC instead (exchange, anchor); issuer holds ${units(balances.issuer)} ${usdc.code}`,
    ];
  });

  await step('mainnet: issue a credential', async () => {
    const txId = await issue(degreeId);
    return [undefined, `${degreeId} into the holder's mainnet vault, issuer ${short(issuerDid)}, tx ${short(txId)}`];
  });

  await step('mainnet: verify the credential', async () => {
    const v = unwrap(
      await asIssuer.POST('/contracts/vault/verify-vc', { body: { owner: holder.publicKey(), vcId: degreeId } }),
    );
    if (v.status !== 'valid') throw new Error(`status ${v.status}, expected valid`);
    return [undefined, `${degreeId} is ${v.status}`];
  });

  await step('mainnet: USDC fee paid', async () => {
    const after = {
      issuer: (await trustlineBalance(server, issuer.publicKey(), usdc)) ?? 0n,
      dest: (await trustlineBalance(server, fee.dest, usdc)) ?? 0n,
    };
    const spent = before.issuer - after.issuer;
    const received = after.dest - before.dest;
    if (spent !== fee.amount)
      throw new Error(
        `the issuer's ${usdc.code} went ${units(before.issuer)} → ${units(after.issuer)}, expected exactly ${units(fee.amount)} less`,
      );
    if (received < fee.amount)
      throw new Error(
        `the fee destination received ${units(received)} ${usdc.code}, expected at least ${units(fee.amount)}`,
      );
    return [
      undefined,
      `issuer ${units(before.issuer)} → ${units(after.issuer)} ${usdc.code} (1 credential × ${units(fee.amount)} ${usdc.code}; network fees stay in XLM); ${short(fee.dest)} received ${units(received)} ${usdc.code}`,
    ];
  });
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        start: { type: 'boolean', default: false },
        'ledger-close-ms': { type: 'string' },
        'vault-url': { type: 'string' },
        'mainnet-url': { type: 'string' },
        'resolver-url': { type: 'string' },
        'simulator-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if (args.start && (args['vault-url'] || args['mainnet-url'] || args['resolver-url'] || args['simulator-url'])) {
    console.error(`--start runs its own services; leave out the URL flags\n\n${USAGE}`);
    return 2;
  }
  if (args['ledger-close-ms'] !== undefined && !args.start) {
    console.error(`--ledger-close-ms sets the simulator --start runs; a running one has its own\n\n${USAGE}`);
    return 2;
  }

  let close = async () => {};
  let urls: Urls;
  if (args.start) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'credential-vault-demo-'));
    const { loadConfig } = await import('../src/config/index.ts');
    const { startServices } = await import('../src/services.ts');
    const ports = ['--testnet-port', '--mainnet-port', '--resolver-port', '--simulator-port'].flatMap((f) => [f, '0']);
    const timing = args['ledger-close-ms'] !== undefined ? ['--ledger-close-ms', args['ledger-close-ms']] : [];
    let config;
    try {
      config = loadConfig([...ports, ...timing, '--data-dir', dataDir, '--log-level', 'silent'], {}).config;
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      console.error(err instanceof Error ? err.message : String(err));
      return 2;
    }
    let running;
    try {
      running = await startServices(config, { mode: 'start' });
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      console.error(`could not start the services: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }
    const services = running;
    close = async () => {
      await services.close();
      await rm(dataDir, { recursive: true, force: true });
    };
    urls = {
      vault: services.vault.testnet!.url,
      mainnet: services.vault.mainnet!.url,
      resolver: services.resolverUrl!,
      simulator: services.simulatorUrl!,
    };
    const closes = config.ledgerCloseMs ? `a ledger every ${config.ledgerCloseMs} ms` : 'transactions applied at once';
    console.log(
      `started in-process: simulator ${urls.simulator} (${closes}), vault API (testnet) ${urls.vault}, ` +
        `vault API (mainnet) ${urls.mainnet}, resolver ${urls.resolver}, data ${dataDir}`,
    );
  } else {
    urls = {
      vault: args['vault-url'] ?? 'http://127.0.0.1:3000',
      mainnet: args['mainnet-url'] ?? 'http://127.0.0.1:3002',
      resolver: args['resolver-url'] ?? 'http://127.0.0.1:3001',
      simulator: args['simulator-url'] ?? 'http://127.0.0.1:8000',
    };
  }

  const started = Date.now();
  try {
    await runDemo(urls);
    console.log(`demo passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } catch (err) {
    if (err instanceof StepFailed) console.error(err.message);
    else console.error(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    if (err instanceof StepFailed && /fetch failed|ECONNREFUSED/.test(err.message) && !args.start) {
      console.error(`is \`npm start\` running? (or run \`npm run demo -- --start\`)`);
    }
    return 1;
  } finally {
    await close();
  }
}

process.exitCode = await main(process.argv.slice(2));
