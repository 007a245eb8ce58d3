// A vault API on the RPC simulator with what verification tests need: an issuer (wallet, did:ledger DID with an
// assertion key), a holder (wallet, vault, did:ledger DID with an authentication key), keys for both, and
// helpers to sign credentials (optionally with their LedgerVaultStatusEntry), issue them, and sign
// presentations. Responses are validated against the spec.
import { Keypair } from '@stellar/stellar-sdk';
import { expect } from 'vitest';
import {
  addProof,
  didIdToBytes,
  ed25519KeyPair,
  encodeMultikey,
  generateDid,
  signCredential,
} from '../src/did/index.ts';
import {
  startVaultTestEnv,
  type ApiResponse,
  type MintedKey,
  type VaultTestEnv,
  type VaultTestOptions,
} from './vault-api.ts';

export const V2 = 'https://www.w3.org/ns/credentials/v2';

export interface Party {
  wallet: Keypair;
  key: MintedKey;
  did: string;
  didId: Uint8Array;
  /** The DID's first key: `#assert-1` for the issuer, `#auth-1` for the holder. */
  signing: Keypair;
}

export interface VerificationEnv {
  env: VaultTestEnv;
  issuer: Party;
  holder: Party;
  /** The holder's canonical vault. */
  vault: string;
  call(path: string, body: unknown, key?: MintedKey): Promise<ApiResponse>;
  write(path: string, body: unknown, key: MintedKey, signer: Keypair): Promise<void>;
  registerDid(
    controller: Keypair,
    keys: { auth?: Keypair; assert?: Keypair },
  ): Promise<{ did: string; didId: Uint8Array }>;
  credential(extra?: Record<string, unknown>, issuerDid?: string): Record<string, unknown>;
  sign(o?: {
    credential?: Record<string, unknown>;
    fragment?: string;
    key?: Keypair;
    issuerDid?: string;
    statusFor?: string;
  }): Promise<Record<string, unknown>>;
  statusEntry(vcId: string, over?: Record<string, unknown>): Record<string, unknown>;
  issue(vcId: string, vc: Record<string, unknown>): Promise<void>;
  present(o: {
    credentials: Record<string, unknown>[];
    challenge: string;
    domain?: string;
    /** The presentation's `holder` (default the holder's DID); null for a presentation without one. */
    holder?: string | null;
    vm?: string;
    key?: Keypair;
  }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const mk = (kp: Keypair) => ({ publicKeyMultibase: encodeMultikey('Ed25519', kp.rawPublicKey()) });

export async function startVerificationEnv(options: VaultTestOptions = {}): Promise<VerificationEnv> {
  const many = { read: 100_000, write: 100_000 };
  const env = await startVaultTestEnv({
    network: 'testnet',
    limits: { rateLimits: { standard: many, early: many, admin: many } },
    ...options,
  });
  const call = (path: string, body: unknown, key?: MintedKey) =>
    env.request(path, { ...(key ? { key: key.key } : {}), body });
  const write = async (path: string, body: unknown, key: MintedKey, signer: Keypair) => {
    const p = await call(path, body, key);
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const s = await call(path, { signedXdr: env.sign(p.body.xdr, signer) }, key);
    expect(s.status, JSON.stringify(s.body)).toBe(200);
  };
  const registerDid = async (controller: Keypair, keys: { auth?: Keypair; assert?: Keypair }) => {
    const d = generateDid({ network: 'testnet' });
    const didId = didIdToBytes(d.didId);
    const record = {
      controller: controller.publicKey(),
      authentication: [mk(keys.auth ?? controller)],
      assertionMethod: keys.assert ? [mk(keys.assert)] : [],
      keyAgreement: [],
      services: [],
    };
    const prepared = await env.chain.registry.register({ source: controller.publicKey(), didId, record });
    await env.chain.client.submit(env.sign(prepared.xdr, controller));
    return { did: d.did, didId };
  };
  const party = async (role: 'issuer' | 'holder'): Promise<Party> => {
    const wallet = await env.fund();
    const signing = Keypair.random();
    const d = await registerDid(wallet, role === 'issuer' ? { assert: signing } : { auth: signing });
    return { wallet, key: await env.mintKey({ wallet }), signing, ...d };
  };
  const [issuer, holder] = await Promise.all([party('issuer'), party('holder')]);
  await write(
    '/contracts/vault/create',
    { owner: holder.wallet.publicKey(), didUri: holder.did, sourcePublicKey: holder.wallet.publicKey() },
    holder.key,
    holder.wallet,
  );
  const vault = env.chain.vaultAddress(holder.wallet.publicKey());

  const credential = (extra: Record<string, unknown> = {}, issuerDid = issuer.did) => ({
    '@context': [V2],
    id: `urn:uuid:${crypto.randomUUID()}`,
    type: ['VerifiableCredential', 'EmployeeCredential'],
    issuer: issuerDid,
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: holder.did, role: 'auditor' },
    ...extra,
  });
  const statusEntry = (vcId: string, over: Record<string, unknown> = {}) => ({
    type: 'LedgerVaultStatusEntry',
    statusPurpose: 'revocation',
    network: 'testnet',
    vaultContract: vault,
    vcId,
    ...over,
  });
  const created = () => new Date(env.clock.now() - 60_000);
  const sign: VerificationEnv['sign'] = (o = {}) => {
    const did = o.issuerDid ?? issuer.did;
    const base =
      o.credential ?? credential(o.statusFor !== undefined ? { credentialStatus: statusEntry(o.statusFor) } : {}, did);
    return signCredential({
      credential: base,
      verificationMethod: `${did}#${o.fragment ?? 'assert-1'}`,
      secretKey: (o.key ?? issuer.signing).rawSecretKey(),
      created: created(),
    });
  };
  const issue = (vcId: string, vc: Record<string, unknown>) =>
    write(
      '/contracts/vc/issue',
      {
        owner: holder.wallet.publicKey(),
        vcId,
        vcData: JSON.stringify(vc),
        issuer: issuer.wallet.publicKey(),
        issuerDid: issuer.did,
        sourcePublicKey: issuer.wallet.publicKey(),
      },
      issuer.key,
      issuer.wallet,
    );
  const present: VerificationEnv['present'] = async (o) => {
    const holderDid = o.holder ?? holder.did;
    const vp = {
      '@context': [V2],
      type: ['VerifiablePresentation'],
      ...(o.holder === null ? {} : { holder: holderDid }),
      verifiableCredential: o.credentials,
    };
    return addProof(
      vp,
      {
        verificationMethod: o.vm ?? `${holderDid}#auth-1`,
        proofPurpose: 'authentication',
        challenge: o.challenge,
        ...(o.domain !== undefined ? { domain: o.domain } : {}),
        created: created(),
      },
      { secretKey: (o.key ?? holder.signing).rawSecretKey() },
    );
  };
  return {
    env,
    issuer,
    holder,
    vault,
    call,
    write,
    registerDid,
    credential,
    sign,
    statusEntry,
    issue,
    present,
    close: () => env.close(),
  };
}

/** A did:key and its key pair. */
export function didKeyOf(seed: Keypair): { did: string; vm: string; key: Keypair } {
  const multibase = ed25519KeyPair(seed.rawSecretKey()).publicKeyMultibase;
  return { did: `did:key:${multibase}`, vm: `did:key:${multibase}#${multibase}`, key: seed };
}
