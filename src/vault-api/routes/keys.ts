// API keys (vault-api.yaml tag Keys). A wallet obtains a key by proving control of its account with a
// web-authentication (SEP-10 style) challenge: GET /auth/challenge builds it, POST /auth/keys verifies the
// wallet's signatures and answers a new `standard` key. Operators list, create and revoke keys of any role
// under /admin/keys with an admin key.
//
// The service's challenge signing key is derived (HKDF-SHA256) from the active credential encryption key
// and the network name: every instance that shares the keyring — which they must, to read credentials —
// signs and verifies the same challenges, across restarts, with no extra secret to distribute. Rotating
// the encryption key changes it; challenges in flight (at most 5 minutes old) then fail with
// `challenge_invalid` and the wallet asks for a new one.
import { hkdfSync } from 'node:crypto';
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { VaultErrors, type VaultAppDeps } from '../context.ts';
import { checkOrigin } from '../middleware/cors.ts';
import { buildChallenge, checkSigners, ChallengeError, readChallenge, type ChallengeOptions } from './challenge.ts';
import { KeyExistsError, type ApiKeyRecord, type CreatedKey } from '../../stores/index.ts';
import type { operations } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { OperationHandler } from '../../platform/typed.ts';

/** Home domain and web-auth domain written into challenges (the manage_data key is `credential-vault auth`). */
export const WEB_AUTH_DOMAIN = 'credential-vault';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The account that signs this network's challenges. */
export function webAuthKeypair(deps: Pick<VaultAppDeps, 'keyring' | 'profile'>): Keypair {
  const secret = deps.keyring.key(deps.keyring.activeKid);
  if (!secret) throw new Error('the keyring has no active key');
  const seed = hkdfSync(
    'sha256',
    secret,
    'credential-vault web-auth',
    `challenge signing key ${deps.profile.network}`,
    32,
  );
  return Keypair.fromRawEd25519Seed(Buffer.from(seed));
}

const challengeInvalid = (why: string) => VaultErrors.challengeInvalid(`the challenge is not valid: ${why}`);

interface SignerSummary {
  threshold: number;
  signers: { key: string; weight: number; type: string }[];
}

/**
 * Who may sign for `account` on this network: its master key and ed25519 signers with their weights,
 * and its medium threshold (at least 1). Undefined when the account does not exist on chain.
 */
async function signerSummary(deps: VaultAppDeps, account: string): Promise<SignerSummary | undefined> {
  const key = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(account).xdrPublicKey() }),
  );
  const found = await deps.chain.client.getLedgerEntries([key]);
  const entry = found.entries[0];
  if (!entry) return undefined;
  if (entry.val.type !== 'account') return undefined;
  const acc = entry.val.account;
  const thresholds = acc.thresholds.value;
  const signers = [{ key: account, weight: thresholds[0] ?? 0, type: 'ed25519_public_key' }];
  for (const s of acc.signers) {
    if (s.key.type === 'signerKeyTypeEd25519') {
      signers.push({
        key: StrKey.encodeEd25519PublicKey(s.key.ed25519.value),
        weight: s.weight,
        type: 'ed25519_public_key',
      });
    }
  }
  return { threshold: Math.max(1, thresholds[2] ?? 0), signers: signers.filter((s) => s.weight > 0) };
}

/**
 * The account a signed challenge proves: issued by this service for this network and within its time bounds
 * (on the service's clock); the account exists on this network (decision against key farming: a random
 * unfunded keypair gets no key, 403 `account_not_found`); signed by signers of the account meeting its
 * medium threshold.
 */
async function provenAccount(
  deps: VaultAppDeps,
  o: ChallengeOptions,
  transaction: string,
): Promise<{ account: string; hash: string }> {
  try {
    const read = readChallenge(o, transaction);
    const summary = await signerSummary(deps, read.account);
    if (!summary) {
      throw VaultErrors.accountNotFound(
        `the account ${read.account} does not exist on ${deps.profile.network}: only an existing account gets a key; fund it (create it on the network), then send this challenge again while it is valid`,
      );
    }
    checkSigners(o, read, summary);
    return { account: read.account, hash: Buffer.from(read.tx.hash()).toString('hex') };
  } catch (err) {
    if (err instanceof ChallengeError) throw challengeInvalid(err.message);
    throw err;
  }
}

/** A key record as the spec lists it (ApiKeyRecord); never the key itself. */
/** The longest key list `GET /admin/keys` answers (vault-api.yaml ApiKeyList `maxItems`). */
export const MAX_LISTED_KEYS = 10_000;

function listed(record: ApiKeyRecord) {
  return {
    key_id: record.keyId,
    wallet_address: record.walletAddress,
    role: record.role,
    scopes: [...record.scopes],
    network: record.network,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
  };
}

/** A new key as the spec answers it once (ApiKeyCreated): both routes create it for the wallet they name. */
const created = ({ key, record }: CreatedKey, wallet: string) => ({ key, ...listed(record), wallet_address: wallet });

/** The key operations' handlers, by operationId. */
export function keyRoutes(deps: VaultAppDeps): RouteTable<operations> {
  const challenges: ChallengeOptions = {
    server: webAuthKeypair(deps),
    passphrase: deps.profile.networkPassphrase,
    domain: WEB_AUTH_DOMAIN,
    now: deps.now,
  };
  return {
    getAuthChallenge: getAuthChallenge(deps, challenges),
    createKeyFromProof: createKeyFromProof(deps, challenges),
    listKeys: listKeys(deps),
    createKey: createKey(deps),
    deleteKey: deleteKey(deps),
  };
}

// Each handler takes its body and answers through the generated operation types (src/platform/typed.ts).
export function getAuthChallenge(
  deps: VaultAppDeps,
  challenges: ChallengeOptions,
): OperationHandler<operations['getAuthChallenge']> {
  return (req, res) => {
    checkOrigin(deps, req);
    const { account } = req.query;
    const transaction = buildChallenge(challenges, account);
    const passphrase = deps.profile.networkPassphrase;
    res.json({ transaction, network_passphrase: passphrase, networkPassphrase: passphrase });
  };
}

export function createKeyFromProof(
  deps: VaultAppDeps,
  challenges: ChallengeOptions,
): OperationHandler<operations['createKeyFromProof']> {
  const network = deps.profile.network;
  const usedChallenges = `web-auth-challenge:${network}`;
  return async (req, res) => {
    checkOrigin(deps, req);
    const body = req.body;
    const { account, hash } = await provenAccount(deps, challenges, body.transaction);
    // One use per challenge, across instances: the idempotency store's begin() is the atomic claim.
    const idem = deps.stores.idempotency;
    const claim = await idem.begin({ scope: usedChallenges, key: hash, requestHash: hash, now: deps.now() });
    if (claim.state !== 'started') throw challengeInvalid('this challenge was already used; request a new one');
    let key: CreatedKey;
    try {
      key = await deps.stores.keys.create({
        walletAddress: account,
        network,
        role: 'standard',
        scopes: body.scopes ?? [],
        expiresAt: new Date(deps.now() + deps.limits.keyTtlDays * DAY_MS).toISOString(),
      });
    } catch (err) {
      await idem.release(usedChallenges, hash, claim.token).catch(() => undefined);
      throw err;
    }
    await idem
      .complete(usedChallenges, hash, claim.token, { status: 201, headers: {}, body: { keyId: key.record.keyId } })
      .catch(() => undefined);
    res.status(201).json(created(key, account));
  };
}

export function listKeys(deps: VaultAppDeps): OperationHandler<operations['listKeys']> {
  return async (_req, res) => {
    const keys = await deps.stores.keys.list({ network: deps.profile.network });
    // vault-api.yaml ApiKeyList: at most MAX_LISTED_KEYS, the newest first, so the answer stays bounded.
    const newest = [...keys]
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .slice(0, MAX_LISTED_KEYS);
    res.json({ keys: newest.map(listed) });
  };
}

export function createKey(deps: VaultAppDeps): OperationHandler<operations['createKey']> {
  return async (req, res) => {
    const body = req.body;
    const expiresAt = body.expires_at ?? null;
    if (expiresAt !== null && Date.parse(expiresAt) <= deps.now()) {
      throw VaultErrors.invalidRequest('expires_at must lie in the future');
    }
    let key: CreatedKey;
    try {
      // An operator never replaces a user's key silently (vault-api.yaml POST /admin/keys); the store checks
      // and creates atomically, so of concurrent creates for one wallet exactly one succeeds.
      key = await deps.stores.keys.create(
        {
          walletAddress: body.wallet_address,
          network: deps.profile.network,
          role: body.role ?? 'standard',
          scopes: body.scopes ?? [],
          expiresAt,
        },
        { ifNoActiveKey: true },
      );
    } catch (err) {
      if (err instanceof KeyExistsError)
        throw VaultErrors.keyExists('this wallet already holds a key on this network; delete it first');
      throw err;
    }
    res.status(201).json(created(key, body.wallet_address));
  };
}

export function deleteKey(deps: VaultAppDeps): OperationHandler<operations['deleteKey']> {
  return async (req, res) => {
    const keyId = req.params.keyId;
    const network = deps.profile.network;
    const ofThisNetwork = (await deps.stores.keys.list({ network })).some((k) => k.keyId === keyId);
    if (!ofThisNetwork || !(await deps.stores.keys.revoke(keyId))) {
      throw VaultErrors.keyNotFound('no API key with this key_id');
    }
    res.status(204).end();
  };
}
