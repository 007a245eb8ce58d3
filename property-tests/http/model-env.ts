// Where the HTTP-level model runs: the vault API over the RPC simulator (the test harness), or services
// started over a real network's RPC (scripts/test-network.ts). Both give the model the same thing: a vault
// API URL and, for every run, a fresh world of wallets with keys and registered issuer DIDs whose vaults
// do not exist yet.
//
// Simulator: the wallets, keys and DIDs are made once and the chain is snapshotted; each run reverts to that
// snapshot (sim_revert), so a run costs no set-up. Real network: nothing can be reverted, so each run makes
// new wallets (createAccount from the funded test secrets), keys and DIDs.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, Operation, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import type { Chain } from '../../src/chain/index.ts';
import { didIdToBytes, encodeMultikey, generateDid } from '../../src/did/index.ts';
import type { KeyStore } from '../../src/stores/index.ts';
import { startVaultTestEnv, type VaultTestEnv } from '../../test-support/vault-api.ts';

export type Network = 'testnet' | 'mainnet';

/** The model's wallets: two standard keys, one key limited to reading and issuing, one admin key. */
export const WALLET_NAMES = ['alice', 'bob', 'lim', 'admin'] as const;
export type WalletName = (typeof WALLET_NAMES)[number];

export const WALLET_KEYS: Record<WalletName, { role: 'standard' | 'admin'; scopes: string[] }> = {
  alice: { role: 'standard', scopes: [] },
  bob: { role: 'standard', scopes: [] },
  lim: { role: 'standard', scopes: ['credentials:read', 'credentials:issue'] },
  admin: { role: 'admin', scopes: [] },
};

export interface Wallet {
  name: WalletName;
  kp: Keypair;
  /** G… address. */
  id: string;
  /** The API key bound to this wallet. */
  key: string;
  role: 'standard' | 'admin';
  /** Empty = unrestricted. */
  scopes: string[];
  /** A registered `did:ledger` DID whose controller is this wallet. */
  did: string;
}

export interface World {
  wallets: Record<WalletName, Wallet>;
  /** The userSalt of every owner's second ("salted") vault. */
  salt: string;
  /** Vaults deployed before the run (didUri = the owner's DID), so that sequences start with somewhere to write. */
  vaults: { owner: WalletName; slot: 'c' | 's' }[];
  /** Credentials issued into those vaults before the run (valid), in issuance order per vault. */
  credentials: InitialCredential[];
  /** A well-formed DID of this network that is not registered. */
  unregisteredDid: string;
  /** A well-formed DID of the other network. */
  otherNetworkDid: string;
}

export interface ModelEnv {
  kind: 'simulator' | 'network';
  vaultUrl: string;
  network: Network;
  passphrase: string;
  /** A world whose vaults do not exist yet. */
  freshWorld(): Promise<World>;
  close(): Promise<void>;
}

const otherNetwork = (n: Network): Network => (n === 'testnet' ? 'mainnet' : 'testnet');

/** 16 deterministic bytes per label, so a replay sees the same DIDs. */
const seeded = (label: string) => (n: number) =>
  createHash('sha256').update(`http-model/${label}`).digest().subarray(0, n);

/**
 * Registers an issuer DID for `kp` straight through the chain: `kp` is the controller, the authentication
 * key and the assertionMethod key (docs/did-resolver.md "Record rules": an issuer needs one to issue).
 */
export async function registerDidOnChain(
  chain: Chain,
  network: Network,
  kp: Keypair,
  passphrase: string,
  random?: (n: number) => Uint8Array,
): Promise<string> {
  const { did, didId } = generateDid({ network, ...(random ? { random } : {}) });
  const key = { publicKeyMultibase: encodeMultikey('Ed25519', kp.rawPublicKey()) };
  const prepared = await chain.registry.register({
    source: kp.publicKey(),
    didId: didIdToBytes(didId),
    record: {
      controller: kp.publicKey(),
      authentication: [key],
      assertionMethod: [key],
      keyAgreement: [],
      services: [],
    },
  });
  const tx = TransactionBuilder.fromXdr(prepared.xdr, passphrase);
  tx.sign(kp);
  await chain.client.submit(tx.toXdr());
  return did;
}

/** The vaults every world starts with: both vaults of the two standard wallets. */
export const INITIAL_VAULTS: World['vaults'] = [
  { owner: 'alice', slot: 'c' },
  { owner: 'alice', slot: 's' },
  { owner: 'bob', slot: 'c' },
  { owner: 'bob', slot: 's' },
];

export interface InitialCredential {
  owner: WalletName;
  slot: 'c' | 's';
  issuer: WalletName;
  vcId: string;
  vcData: string;
}

/** The credentials every world starts with, so that revocation, push and read-back meet real ones early. */
const INITIAL_CREDENTIALS: { owner: WalletName; slot: 'c' | 's'; issuer: WalletName; vcIds: string[] }[] = [
  { owner: 'alice', slot: 'c', issuer: 'bob', vcIds: ['vc-0'] },
  { owner: 'alice', slot: 's', issuer: 'alice', vcIds: ['vc-1', 'vc-2'] },
  { owner: 'bob', slot: 's', issuer: 'alice', vcIds: ['vc-0'] },
];

export function initialVcData(issuerDid: string, holderDid: string, vcId: string): string {
  return JSON.stringify({
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'ModelCredential'],
    issuer: issuerDid,
    credentialSubject: { id: holderDid, note: `initial ${vcId}` },
  });
}

/** Issues the initial credentials through the API (batch-issue with the issuer's key; set-up, not under test). */
async function issueInitial(
  vaultUrl: string,
  passphrase: string,
  wallets: Record<WalletName, Wallet>,
  salt: string,
): Promise<InitialCredential[]> {
  const out: InitialCredential[] = [];
  const post = async (key: string, body: unknown) => {
    const res = await fetch(`${vaultUrl}/contracts/vc/batch-issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-key': key },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`set-up batch-issue answered ${res.status} ${text}`);
    return JSON.parse(text) as { xdr: string };
  };
  for (const c of INITIAL_CREDENTIALS) {
    const [issuer, owner] = [wallets[c.issuer], wallets[c.owner]];
    const vcs = c.vcIds.map((vcId) => ({ vcId, vcData: initialVcData(issuer.did, owner.did, vcId) }));
    const prepared = await post(issuer.key, {
      owner: owner.id,
      issuer: issuer.id,
      issuerDid: issuer.did,
      vcs,
      sourcePublicKey: issuer.id,
      ...(c.slot === 's' ? { userSalt: salt } : {}),
    });
    const tx = TransactionBuilder.fromXdr(prepared.xdr, passphrase);
    tx.sign(issuer.kp);
    await post(issuer.key, { signedXdr: tx.toXdr() });
    out.push(...vcs.map((v) => ({ owner: c.owner, slot: c.slot, issuer: c.issuer, vcId: v.vcId, vcData: v.vcData })));
  }
  return out;
}

/** Deploys a vault straight through the chain (set-up, not under test). */
async function deployVault(chain: Chain, w: Wallet, userSalt: string | undefined, passphrase: string): Promise<void> {
  const prepared = await chain.factory.deploy({
    source: w.id,
    owner: w.id,
    didUri: w.did,
    ...(userSalt ? { userSalt } : {}),
  });
  const tx = TransactionBuilder.fromXdr(prepared.xdr, passphrase);
  tx.sign(w.kp);
  await chain.client.submit(tx.toXdr());
}

async function simRpc(url: string, method: string, params?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params !== undefined ? { params } : {}) }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const UNLIMITED = { read: 1e9, write: 1e9 };

/**
 * The vault API over the RPC simulator (response validation on), with the model's wallets, keys and DIDs
 * made once; every `freshWorld` reverts the chain to the snapshot taken after that set-up.
 */
export async function startSimulatorModelEnv(): Promise<ModelEnv & { vault: VaultTestEnv }> {
  // The model sends hundreds of requests a minute per key: the rate limits are not what it is about.
  const vault = await startVaultTestEnv({
    limits: { rateLimits: { standard: UNLIMITED, early: UNLIMITED, admin: UNLIMITED } },
  });
  try {
    const rpcUrl = vault.info!.rpcUrl!;
    const wallets = {} as Record<WalletName, Wallet>;
    for (const name of WALLET_NAMES) {
      const kp = Keypair.fromRawEd25519Seed(createHash('sha256').update(`http-model/wallet/${name}`).digest());
      await vault.fund(kp);
      const { role, scopes } = WALLET_KEYS[name];
      const { key } = await vault.mintKey({ wallet: kp, role, scopes });
      const did = await registerDidOnChain(vault.chain, vault.network, kp, vault.passphrase, seeded(`did/${name}`));
      wallets[name] = { name, kp, id: kp.publicKey(), key, role, scopes, did };
    }
    const salt = createHash('sha256').update('http-model/salt').digest('hex');
    for (const v of INITIAL_VAULTS)
      await deployVault(vault.chain, wallets[v.owner], v.slot === 's' ? salt : undefined, vault.passphrase);
    const credentials = await issueInitial(vault.url, vault.passphrase, wallets, salt);
    const world: World = {
      wallets,
      salt,
      vaults: INITIAL_VAULTS,
      credentials,
      unregisteredDid: generateDid({ network: vault.network, random: seeded('did/unregistered') }).did,
      otherNetworkDid: generateDid({ network: otherNetwork(vault.network), random: seeded('did/other-network') }).did,
    };
    const snapshot = await simRpc(rpcUrl, 'sim_snapshot');
    return {
      kind: 'simulator',
      vault,
      vaultUrl: vault.url,
      network: vault.network,
      passphrase: vault.passphrase,
      async freshWorld() {
        await simRpc(rpcUrl, 'sim_revert', { id: snapshot });
        return world;
      },
      close: () => vault.close(),
    };
  } catch (err) {
    await vault.close();
    throw err;
  }
}

export interface NetworkModelOptions {
  vaultUrl: string;
  network: Network;
  passphrase: string;
  rpcUrl: string;
  /** The chain of the vault API's network (to register the wallets' DIDs). */
  chain: Chain;
  /** The key store of the running vault API (keys are minted as the operator CLI does). */
  keys: KeyStore;
  /** Funded accounts that pay for the new wallets. */
  funders: Keypair[];
  /** Starting balance of every new wallet, in native units (issuers pay the issuance fees from it). */
  startingBalance: string;
  log?: (line: string) => void;
}

/** Creates accounts with `createAccount` operations from `funder`, in one transaction. */
export async function createAccounts(o: {
  rpcUrl: string;
  passphrase: string;
  funder: Keypair;
  accounts: Keypair[];
  startingBalance: string;
}): Promise<void> {
  const server = new rpc.Server(o.rpcUrl, { allowHttp: o.rpcUrl.startsWith('http:') });
  const source = await server.getAccount(o.funder.publicKey());
  const builder = new TransactionBuilder(source, { fee: '10000', networkPassphrase: o.passphrase });
  for (const a of o.accounts)
    builder.addOperation(Operation.createAccount({ destination: a.publicKey(), startingBalance: o.startingBalance }));
  const tx = builder.setTimeout(120).build();
  tx.sign(o.funder);
  const sent = await server.sendTransaction(tx);
  if (sent.status === 'ERROR') throw new Error(`createAccount rejected: ${sent.errorResult?.result.type ?? 'unknown'}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await server.getTransaction(sent.hash);
    if (r.status === rpc.Api.GetTransactionStatus.SUCCESS) return;
    if (r.status === rpc.Api.GetTransactionStatus.FAILED)
      throw new Error(`createAccount failed (transaction ${sent.hash})`);
    if (Date.now() > deadline) throw new Error(`createAccount not final after 120 s (transaction ${sent.hash})`);
    await new Promise((r2) => setTimeout(r2, 1_000));
  }
}

/** The model against services over a real network: each run makes its own wallets, keys and DIDs. */
export function networkModelEnv(o: NetworkModelOptions): ModelEnv {
  let runs = 0;
  return {
    kind: 'network',
    vaultUrl: o.vaultUrl,
    network: o.network,
    passphrase: o.passphrase,
    async freshWorld() {
      const funder = o.funders[runs++ % o.funders.length]!;
      const kps = Object.fromEntries(WALLET_NAMES.map((n) => [n, Keypair.random()])) as Record<WalletName, Keypair>;
      await createAccounts({
        rpcUrl: o.rpcUrl,
        passphrase: o.passphrase,
        funder,
        accounts: Object.values(kps),
        startingBalance: o.startingBalance,
      });
      const wallets = {} as Record<WalletName, Wallet>;
      await Promise.all(
        WALLET_NAMES.map(async (name) => {
          const kp = kps[name];
          const { role, scopes } = WALLET_KEYS[name];
          const { key } = await o.keys.create({
            walletAddress: kp.publicKey(),
            network: o.network,
            role,
            scopes,
            expiresAt: null,
          });
          const did = await registerDidOnChain(o.chain, o.network, kp, o.passphrase);
          wallets[name] = { name, kp, id: kp.publicKey(), key, role, scopes, did };
        }),
      );
      const salt = randomBytes(32).toString('hex');
      // One owner's transactions one after the other (they share its sequence number), owners side by side.
      const owners = [...new Set(INITIAL_VAULTS.map((v) => v.owner))];
      await Promise.all(
        owners.map(async (owner) => {
          for (const v of INITIAL_VAULTS.filter((x) => x.owner === owner))
            await deployVault(o.chain, wallets[owner], v.slot === 's' ? salt : undefined, o.passphrase);
        }),
      );
      const credentials = await issueInitial(o.vaultUrl, o.passphrase, wallets, salt);
      o.log?.(`  world ${runs}: ${WALLET_NAMES.map((n) => `${n} ${wallets[n].id.slice(0, 6)}…`).join(', ')}`);
      return {
        wallets,
        salt,
        vaults: INITIAL_VAULTS,
        credentials,
        unregisteredDid: generateDid({ network: o.network }).did,
        otherNetworkDid: generateDid({ network: otherNetwork(o.network) }).did,
      };
    },
    close: async () => undefined,
  };
}
