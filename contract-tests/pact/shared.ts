// What the consumer tests, the provider verifications and the Prism replays share: the pacticipant names,
// where the pact files live, the provider-state names (one constant each, so a consumer and a provider can
// never spell a state differently), the example values the pacts carry, and the matchers that make a pact
// describe shapes rather than one run's values.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MatchersV3 } from '@pact-foundation/pact';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const CONSUMER = 'credential-vault-client';
export const VAULT_PROVIDER = 'credential-vault-api';
export const RESOLVER_PROVIDER = 'did-ledger-resolver';

/** The folder consumers fetch pacts from (contract-tests/README.md); committed. */
export const PACT_DIR = path.join(ROOT, 'pacts');
export const VAULT_SPEC = path.join(ROOT, 'spec', 'vault-api.yaml');
export const RESOLVER_SPEC = path.join(ROOT, 'spec', 'did-resolver.yaml');

export const pactFile = (provider: string): string => path.join(PACT_DIR, `${CONSUMER}-${provider}.json`);

/**
 * Provider states of the vault API. `G…` stands for an account the provider creates at verification time
 * and hands back (`fromProviderState`); the comment lists the values each state injects.
 */
export const VAULT_STATES = {
  /** {key, wallet}; params {scopes?}: a funded wallet without a vault, and a standard key bound to it. */
  apiKey: 'an API key k for wallet G…',
  /**
   * {adminKey, factoryAdmin, wallet}: an admin key bound to a wallet, without expiry; the factory admin; a
   * funded wallet without a key.
   */
  adminKey: 'an admin API key',
  /** {adminKey, keyId}: an admin key and another key to revoke. */
  keyToRevoke: 'an admin API key and a key k2 for wallet G…',
  /** {adminKey, wallet}: an admin key and a wallet that already holds a key. */
  walletWithKey: 'an admin API key and a wallet G… that already holds a key',
  /** {adminKey, factoryAdmin, issuer}: an admin key and an issuer with a custom fee. */
  customFee: 'an admin API key and issuer G… with a custom fee',
  /** {wallet, transaction}: a challenge from GET /auth/challenge, signed by the wallet. */
  signedChallenge: 'a wallet-proof challenge signed by wallet G…',
  /** {key, wallet, signedXdr}: a signed deployment of the wallet's canonical vault, not submitted yet. */
  signedVaultCreate: 'a signed vault deployment for wallet G…',
  /**
   * {owner, ownerKey, issuer, issuerKey, issuerDid, vcId, stranger, strangerKey, strangerDid}; params {vcId}:
   * the owner's canonical vault holds credential vcId issued by the issuer (whose did:ledger DID is
   * registered); the stranger is funded, has a key and a DID, and no vault.
   */
  vaultWithCredential: 'a vault exists for owner G… with credential vc-1',
  /**
   * As vaultWithCredential, and the credential carries the issuer's Data Integrity proof (eddsa-jcs-2022,
   * `{issuerDid}#assert-1`), so POST /credentials/verify passes every check.
   */
  signedCredential: 'a vault exists for owner G… with credential vc-1 signed by its issuer',
  /** As vaultWithCredential, and the credential is revoked. */
  revokedCredential: 'a vault exists for owner G… whose credential vc-1 is revoked',
  /** As vaultWithCredential, and the vault denies the issuer. */
  deniedIssuer: 'a vault exists for owner G… that denies issuer G…',
  /** As vaultWithCredential, and the vault is revoked. */
  revokedVault: 'a revoked vault of owner G…',
  /** {owner, ownerKey, strangerKey, userSalt, vcId}: a salted vault holds vcId, the canonical vault exists. */
  saltedVault: 'a salted vault of owner G… holds credential vc-2 and the canonical vault exists',
  /** {issuerKey, signedXdr}; params {vcId}: an issue of vcId into the owner's vault, signed, not submitted. */
  signedIssue: 'a signed issue of credential vc-2 into the vault of owner G…',
  /** {ownerKey, signedXdr}; params {vcId}: a revocation of vcId, signed by the owner, not submitted. */
  signedRevoke: 'a signed revocation of credential vc-1 in the vault of owner G…',
} as const;

/** Provider states of the resolver. */
export const RESOLVER_STATES = {
  /** {account, did}: a funded account and a fresh, unregistered DID. */
  fundedAccount: 'a funded account G… and an unregistered DID',
  /** {did, controller, version}: an active DID (one Ed25519 authentication key). */
  registeredDid: 'a registered DID did:ledger:testnet:…',
  /** {did, controller, version}: a deactivated DID. */
  deactivatedDid: 'a deactivated DID did:ledger:testnet:…',
  /** {did, signedXdr}: the registration of a fresh DID, signed by its controller, not submitted. */
  signedRegister: 'a signed registration of a new DID',
  /** {did, signedXdr}: an update of a registered DID, signed by its controller, not submitted. */
  signedUpdate: 'a signed update of DID did:ledger:testnet:…',
  /** {did, signedXdr}: the deactivation of a registered DID, signed by its controller, not submitted. */
  signedDeactivate: 'a signed deactivation of DID did:ledger:testnet:…',
  /** {did, domain, nonce, timestamp, signature}: a challenge issued for a registered DID, signed by its key. */
  signedProof: 'a proof-of-control challenge for DID did:ledger:testnet:… signed by its authentication key',
  /** As signedProof, for a DID deactivated after the challenge was issued. */
  signedProofDeactivated: 'a proof-of-control challenge signed for DID did:ledger:testnet:… which is now deactivated',
} as const;

/**
 * Example values written into the pacts (the consumer's mock answers with them; a provider-state value
 * replaces them at verification). Valid account addresses and DIDs, so Prism accepts them too.
 */
export const EXAMPLE = {
  owner: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
  issuer: 'GDWUSKGGFDI4FRXK5EBTRECZSVQSSWJHHJOGH6JWG3AUMFFMQ435DIAG',
  stranger: 'GDFJHLAXAUMHA4OWPOB4P7YO72AQR2HMIUYFOXLXE2DZGM633K7HZDQP',
  sponsor: 'GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN',
  factoryAdmin: 'GDVEU3DD4KOFECV66VIHWEZOYX4ZKR3WV27L464SIIPOU2IUI3JCZA57',
  newOwner: 'GCFIOX77D2ZYIUKXPLGVV7XEAVCWK2G5PSE6BEEGHICVPPD26SPRPPVB',
  /** API keys (64 hex); distinct per role so a pact reads clearly. */
  key: '3b8f0c6d2a9e47f1b5c8d0e2a4f6b8c1d3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2',
  ownerKey: '5a1c7e3b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c',
  issuerKey: '9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b2d4f6a8c0e1b',
  strangerKey: 'c4e6b8d0f1a3c5e7b9d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5',
  adminKey: '0b9c2625dc21ef05a7d3e1f9c8b6a4d2e0f8c6a4b2d0e8f6a4c2b0d8e6f4a2c0',
  /** A key that no deployment ever issued. */
  unknownKey: 'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  keyId: '7c4a8d09ca3762af',
  issuerDid: 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a',
  strangerDid: 'did:ledger:testnet:q3xkzv7m2c5nbdw4hjt6rypfsa',
  holderDid: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa',
  did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
  /** Never registered on any network the tests run. */
  unregisteredDid: 'did:ledger:testnet:7wq3mfx2rk5dhnp4gzbtcv6ysa',
  userSalt: 'ab'.repeat(32),
  vaultAddress: 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ',
  contractId: 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ',
  passphrase: 'Test SDF Network ; September 2015',
  txHash: 'f7d362c66eb9749e2f834f195957d7cc319994d0dc1c00deac725f285c8d4a30',
  /** A transaction envelope, base64 XDR (the spec's example). */
  xdr: 'AAAAAgAAAADtSSjGKNHCxurpAziQWZVhKVknOlxj+TY2wUYUrIc30QATEtAAAAGQAAAAAgAAAAEAAAAAAAAAAAAAAABqRFmsAAAAAAAAAAEAAAAAAAAAGAAAAAAAAAAB+FtdNbXUMHoU3635MF99as0Xm4zSi+Pm4+Rdg1g/dYgAAAAFaXNzdWUAAAAAAAAFAAAADgAAAAx2Yy0yMDI2LTAwMDEAAAAOAAAAH3YxLmdjbS45ZjJjNDFkMDdhYjNlNmM4YTVkMWYwZTMAAAAAEgAAAAH4W101tdQwehTfrfkwX31qzRebjNKL4+bj5F2DWD91iAAAABIAAAAAAAAAAO1JKMYo0cLG6ukDOJBZlWEpWSc6XGP5NjbBRhSshzfRAAAADgAAAC1kaWQ6bGVkZ2VyOnRlc3RuZXQ6YjRwYzJwY2xsanV4cmI0d3V3Mm1odXhiNmEAAAAAAAAAAAAAAAAAAAA=',
  multikey: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  timestamp: '2026-07-01T12:00:00.000Z',
  nodeVersion: '24.21.0',
} as const;

const { regex, fromProviderState } = MatchersV3;

/** Regular expressions of the specs' patterns, as the pacts carry them. */
export const PATTERN = {
  account: '^G[A-Z2-7]{55}$',
  contract: '^C[A-Z2-7]{55}$',
  base64: '^[A-Za-z0-9+/]+={0,2}$',
  hex64: '^[0-9a-f]{64}$',
  keyId: '^[0-9a-f]{16}$',
  isoDateTime: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
  did: '^did:ledger:(mainnet|testnet):[a-z2-7]{26}$',
  multikey: '^z6Mk[1-9A-HJ-NP-Za-km-z]+$',
  nodeVersion: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
  jsonMediaType: '^application/json(;.*)?$',
  didJsonMediaType: '^application/did\\+json(;.*)?$',
  htmlMediaType: '^text/html(;.*)?$',
} as const;

/** Shape matchers: a value of the spec's pattern, with `example` as the pact's example. */
export const like = {
  account: (example: string = EXAMPLE.owner) => regex(PATTERN.account, example),
  contract: (example: string = EXAMPLE.contractId) => regex(PATTERN.contract, example),
  xdr: (example: string = EXAMPLE.xdr) => regex(PATTERN.base64, example),
  txHash: (example: string = EXAMPLE.txHash) => regex(PATTERN.hex64, example),
  isoDateTime: (example: string = EXAMPLE.timestamp) => regex(PATTERN.isoDateTime, example),
  did: (example: string = EXAMPLE.did) => regex(PATTERN.did, example),
  multikey: (example: string = EXAMPLE.multikey) => regex(PATTERN.multikey, example),
  nodeVersion: (example: string = EXAMPLE.nodeVersion) => regex(PATTERN.nodeVersion, example),
};

/** `${name}` of the provider state, `example` in the pact. */
export const injected = <T>(name: string, example: T) => fromProviderState(`\${${name}}`, example);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * The pact template of a request body the consumer sends as `body`: the fields named in `fields` (dotted
 * paths; the value is the provider-state name) become `fromProviderState` with the body's value as the
 * example. The consumer keeps one typed body; the pact says which of its values the provider supplies.
 *
 *     withInjected({ owner: 'G…', vcId: 'vc-1' }, { owner: 'owner' })
 */
export function withInjected(body: object, fields: Record<string, string>): unknown {
  const copy = structuredClone(body) as Record<string, Json>;
  for (const [dotted, name] of Object.entries(fields)) {
    const keys = dotted.split('.');
    const last = keys.pop()!;
    let node: Record<string, Json> = copy;
    for (const k of keys) node = node[k] as Record<string, Json>;
    if (!(last in node)) throw new Error(`withInjected: the body has no field ${dotted}`);
    (node as Record<string, unknown>)[last] = injected(name, node[last]);
  }
  return copy;
}
