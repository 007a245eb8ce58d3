import { createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildResolutionResult, resolutionError } from './document.ts';
import { canonicalizeToBytes } from './jcs.ts';
import {
  Ed25519KeyCache,
  MemoryNonceStore,
  createChallenge,
  verifyProof,
  type ProofChallenge,
  type VerifyProofOptions,
} from './proof.ts';
import type { DidRecord, DidResolutionResult } from './types.ts';

const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const OTHER_DID = 'did:ledger:mainnet:aaaqeayeaudaocajbifqydiob4';
const DOMAIN = 'vault.example.org';
const NOW = new Date('2025-03-01T12:00:00.000Z');
const minutes = (m: number) => new Date(NOW.getTime() + m * 60_000);

// Ed25519 seeds 0, 1, 2 of the did:key test vectors, and their Multikeys.
const seedKey = (n: number): KeyObject =>
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(31), Buffer.from([n])]),
    format: 'der',
    type: 'pkcs8',
  });
const KEYS = [seedKey(0), seedKey(1), seedKey(2)];
const MULTIKEYS = [
  'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  'z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
  'z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf',
];

const RECORD: DidRecord = {
  controller: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
  authentication: [{ publicKeyMultibase: MULTIKEYS[0]! }, { publicKeyMultibase: MULTIKEYS[1]! }],
  assertionMethod: [{ publicKeyMultibase: MULTIKEYS[2]! }],
  keyAgreement: [],
  services: [],
  version: 2,
  createdLedger: 10,
  updatedLedger: 20,
  deactivated: false,
};
const parsed = { did: DID, network: 'testnet' as const, didId: 'nohsyhu2pu7uaulcoocjljvxza' };
const ACTIVE = buildResolutionResult({ parsed, record: RECORD });
const TOMBSTONE = buildResolutionResult({
  parsed,
  record: { ...RECORD, deactivated: true, authentication: [], assertionMethod: [] },
});

const signWith = (key: KeyObject, challenge: unknown) =>
  cryptoSign(null, canonicalizeToBytes(challenge), key).toString('base64url');

interface Setup {
  store: MemoryNonceStore;
  challenge: ProofChallenge;
}

async function issue(over: { did?: string; at?: Date } = {}): Promise<Setup> {
  const store = new MemoryNonceStore({ now: () => NOW.getTime() });
  const r = await createChallenge({ did: over.did ?? DID, domain: DOMAIN, now: over.at ?? NOW, nonceStore: store });
  if (!r.ok) throw new Error(r.message);
  return { store, challenge: r.challenge };
}

type Case = {
  name: string;
  /** Changes the verification input after a challenge was issued and signed with auth key 1. */
  tweak?: (o: VerifyProofOptions, s: Setup) => void | Promise<void>;
  issuedAt?: Date;
  want: { verified: true; verificationMethod: string } | { verified: false; error: string };
};

const resolveTo = (r: DidResolutionResult) => async () => r;

describe.each<Case>([
  { name: 'signed by authentication key 1', want: { verified: true, verificationMethod: `${DID}#auth-1` } },
  {
    name: 'signed by authentication key 2',
    tweak: (o, s) => void (o.signature = signWith(KEYS[1]!, s.challenge)),
    want: { verified: true, verificationMethod: `${DID}#auth-2` },
  },
  { name: 'issued 4:59 ago', issuedAt: minutes(-4.99), want: { verified: true, verificationMethod: `${DID}#auth-1` } },
  {
    name: 'issued exactly 5 minutes ago',
    issuedAt: minutes(-5),
    want: { verified: true, verificationMethod: `${DID}#auth-1` },
  },
  {
    name: 'clock skew: timestamp 4 minutes ahead',
    tweak: (o) => void (o.now = minutes(-4)),
    want: { verified: true, verificationMethod: `${DID}#auth-1` },
  },
  // 1. the window, before everything else (the domain, nonce and signature are wrong too)
  {
    name: 'expired, with every later check failing too',
    tweak: (o) => {
      o.now = minutes(5.01);
      o.expectedDomain = 'evil.example';
      o.signature = 'A'.repeat(86);
    },
    want: { verified: false, error: 'challenge_expired' },
  },
  {
    name: 'timestamp more than 5 minutes ahead',
    tweak: (o) => void (o.now = minutes(-5.01)),
    want: { verified: false, error: 'challenge_expired' },
  },
  // 2. the domain, before the nonce (which it must not spend)
  {
    name: 'another domain, with a bad signature too',
    tweak: (o) => {
      o.expectedDomain = 'evil.example';
      o.signature = 'A'.repeat(86);
    },
    want: { verified: false, error: 'domain_mismatch' },
  },
  // 3. the nonce, before the signature
  {
    name: 'unknown nonce, with a bad signature too',
    tweak: (o) => {
      o.nonceStore = new MemoryNonceStore({ now: () => NOW.getTime() });
      o.signature = 'A'.repeat(86);
    },
    want: { verified: false, error: 'nonce_invalid' },
  },
  {
    name: 'replay: the nonce was already used',
    tweak: async (o) => void (await verifyProof({ ...o })),
    want: { verified: false, error: 'nonce_invalid' },
  },
  {
    name: 'nonce moved to another DID (re-signed by that DID)',
    tweak: (o, s) => {
      const moved = { ...s.challenge, did: OTHER_DID };
      o.challenge = moved;
      o.signature = signWith(KEYS[0]!, moved);
      o.resolve = resolveTo(ACTIVE);
    },
    want: { verified: false, error: 'nonce_invalid' },
  },
  {
    name: 'timestamp moved forward (re-signed)',
    tweak: (o, s) => {
      const moved = { ...s.challenge, timestamp: minutes(1).toISOString() };
      o.challenge = moved;
      o.signature = signWith(KEYS[0]!, moved);
    },
    want: { verified: false, error: 'nonce_invalid' },
  },
  {
    name: 'nonce expired in the store',
    tweak: (o, s) => {
      const later = new MemoryNonceStore({ now: () => minutes(6).getTime() });
      void later.issue(s.challenge.nonce, minutes(5), 'x');
      o.nonceStore = later;
    },
    want: { verified: false, error: 'nonce_invalid' },
  },
  // 4. resolution and the signature
  {
    name: 'signed by the assertion key only',
    tweak: (o, s) => void (o.signature = signWith(KEYS[2]!, s.challenge)),
    want: { verified: false, error: 'signature_invalid' },
  },
  {
    name: 'signature over another challenge',
    tweak: (o, s) => void (o.signature = signWith(KEYS[0]!, { ...s.challenge, domain: 'evil.example' })),
    want: { verified: false, error: 'signature_invalid' },
  },
  {
    name: 'signature with padding',
    tweak: (o) => void (o.signature = `${o.signature as string}==`),
    want: { verified: false, error: 'signature_invalid' },
  },
  {
    name: 'signature in standard base64',
    // A signature whose base64url form has no '-' or '_' reads the same in standard base64, so the case
    // would test nothing (about 1 run in 15 with a random nonce): issue until the two forms differ.
    tweak: async (o) => {
      for (let attempt = 0; ; attempt++) {
        if (attempt === 200) throw new Error('no signature with + or / in 200 tries');
        const s = await issue();
        const standard = Buffer.from(signWith(KEYS[0]!, s.challenge), 'base64url')
          .toString('base64')
          .replace(/=+$/, '');
        if (!/[+/]/.test(standard)) continue;
        o.challenge = s.challenge;
        o.nonceStore = s.store;
        o.signature = standard;
        return;
      }
    },
    want: { verified: false, error: 'signature_invalid' },
  },
  {
    name: 'signature not a string',
    tweak: (o) => void (o.signature = 42),
    want: { verified: false, error: 'signature_invalid' },
  },
  {
    name: 'DID not registered',
    tweak: (o) => void (o.resolve = resolveTo(resolutionError('notFound'))),
    want: { verified: false, error: 'did_not_found' },
  },
  {
    name: 'DID deactivated',
    tweak: (o) => void (o.resolve = resolveTo(TOMBSTONE)),
    want: { verified: false, error: 'did_deactivated' },
  },
  {
    name: 'ledger unreachable',
    tweak: (o) => void (o.resolve = resolveTo(resolutionError('internalError'))),
    want: { verified: false, error: 'ledger_unavailable' },
  },
  {
    name: 'resolver throws',
    tweak: (o) =>
      void (o.resolve = async () => {
        throw new Error('connect ECONNREFUSED');
      }),
    want: { verified: false, error: 'ledger_unavailable' },
  },
  // shape, before anything
  {
    name: 'extra challenge field',
    tweak: (o, s) => void (o.challenge = { ...s.challenge, extra: 1 }),
    want: { verified: false, error: 'invalid_request' },
  },
  {
    name: 'missing challenge field',
    tweak: (o, s) => void (o.challenge = { did: s.challenge.did, domain: DOMAIN, nonce: s.challenge.nonce }),
    want: { verified: false, error: 'invalid_request' },
  },
  {
    name: 'challenge not an object',
    tweak: (o) => void (o.challenge = 'x'),
    want: { verified: false, error: 'invalid_request' },
  },
  {
    name: 'timestamp not ISO-8601',
    tweak: (o, s) => void (o.challenge = { ...s.challenge, timestamp: 'yesterday' }),
    want: { verified: false, error: 'invalid_request' },
  },
  {
    name: 'lone surrogate in the domain',
    tweak: (o, s) => void (o.challenge = { ...s.challenge, domain: '\ud800' }),
    want: { verified: false, error: 'invalid_request' },
  },
  {
    name: 'invalid DID',
    tweak: (o, s) => void (o.challenge = { ...s.challenge, did: 'did:ledger:public:x' }),
    want: { verified: false, error: 'did_invalid' },
  },
])('verifyProof: $name', ({ tweak, issuedAt, want }) => {
  it('returns the expected outcome without throwing', async () => {
    const setup = await issue({ at: issuedAt });
    const options: VerifyProofOptions = {
      challenge: setup.challenge,
      signature: signWith(KEYS[0]!, setup.challenge),
      expectedDomain: DOMAIN,
      resolve: resolveTo(ACTIVE),
      now: NOW,
      nonceStore: setup.store,
    };
    await tweak?.(options, setup);
    const got = await verifyProof(options);
    if (want.verified) expect(got).toEqual({ ...want, did: DID });
    else expect(got).toMatchObject(want);
  });
});

describe('verifyProof spends the nonce', () => {
  it.each([
    { name: 'on success', sign: 0, first: true },
    { name: 'on a bad signature', sign: 2, first: false },
  ])('$name: a second attempt is nonce_invalid', async ({ sign, first }) => {
    const { store, challenge } = await issue();
    const options = { challenge, expectedDomain: DOMAIN, resolve: resolveTo(ACTIVE), now: NOW, nonceStore: store };
    expect((await verifyProof({ ...options, signature: signWith(KEYS[sign]!, challenge) })).verified).toBe(first);
    expect(await verifyProof({ ...options, signature: signWith(KEYS[0]!, challenge) })).toMatchObject({
      error: 'nonce_invalid',
    });
  });
  it('but not on a domain mismatch', async () => {
    const { store, challenge } = await issue();
    const options = {
      challenge,
      signature: signWith(KEYS[0]!, challenge),
      resolve: resolveTo(ACTIVE),
      now: NOW,
      nonceStore: store,
    };
    expect(await verifyProof({ ...options, expectedDomain: 'evil.example' })).toMatchObject({
      error: 'domain_mismatch',
    });
    expect((await verifyProof({ ...options, expectedDomain: DOMAIN })).verified).toBe(true);
  });
});

describe.each([
  { name: 'valid', did: DID, domain: DOMAIN, want: { ok: true } },
  { name: 'origin as domain', did: DID, domain: 'https://vault.example.org', want: { ok: true } },
  { name: 'invalid DID', did: 'did:ledger:testnet:short', domain: DOMAIN, want: { ok: false, error: 'did_invalid' } },
  { name: 'empty domain', did: DID, domain: '', want: { ok: false, error: 'invalid_request' } },
  { name: 'domain with a space', did: DID, domain: 'a b', want: { ok: false, error: 'invalid_request' } },
  { name: 'domain too long', did: DID, domain: 'a'.repeat(256), want: { ok: false, error: 'invalid_request' } },
])('createChallenge: $name', ({ did, domain, want }) => {
  it('returns a challenge or an error value', async () => {
    const store = new MemoryNonceStore({ now: () => NOW.getTime() });
    const r = await createChallenge({ did, domain, now: NOW, nonceStore: store, random: (n) => Buffer.alloc(n, 0xfb) });
    expect(r).toMatchObject(want);
    if (r.ok) {
      expect(r.challenge).toEqual({
        did,
        domain,
        nonce: '-_v7-_v7-_v7-_v7-_v7-w',
        timestamp: '2025-03-01T12:00:00.000Z',
      });
      expect(store.size).toBe(1);
    } else {
      expect(store.size).toBe(0);
    }
  });
});

describe('a nonce store that throws (an outage) is nonce_store_unavailable, never a pass', () => {
  const down = {
    issue: () => Promise.reject(new Error('redis down')),
    consume: () => Promise.reject(new Error('redis down')),
    close: async () => {},
  };
  it('createChallenge', async () => {
    expect(await createChallenge({ did: DID, domain: DOMAIN, now: NOW, nonceStore: down })).toEqual({
      ok: false,
      error: 'nonce_store_unavailable',
      message: 'the challenge could not be issued: redis down',
    });
  });
  it('verifyProof', async () => {
    const { challenge } = await issue();
    const r = await verifyProof({
      challenge,
      signature: signWith(KEYS[0]!, challenge),
      expectedDomain: DOMAIN,
      resolve: resolveTo(ACTIVE),
      now: NOW,
      nonceStore: down,
    });
    expect(r).toEqual({
      verified: false,
      error: 'nonce_store_unavailable',
      message: 'the nonce could not be checked: redis down',
    });
  });
});

describe('MemoryNonceStore', () => {
  it.each([
    { name: 'fresh nonce, same binding', binding: 'b', at: 4, want: [true, false] },
    { name: 'other binding', binding: 'c', at: 1, want: [false, false] },
    { name: 'after expiry', binding: 'b', at: 6, want: [false, false] },
  ])('$name', async ({ binding, at, want }) => {
    let now = NOW;
    const store = new MemoryNonceStore({ now: () => now.getTime() });
    await store.issue('n', minutes(5), 'b');
    now = minutes(at);
    expect([await store.consume('n', binding), await store.consume('n', 'b')]).toEqual(want);
  });
  it('stays bounded, dropping the oldest nonce first', async () => {
    const store = new MemoryNonceStore({ now: () => NOW.getTime(), maxEntries: 2 });
    for (const n of ['a', 'b', 'c']) await store.issue(n, minutes(5), 'x');
    expect(store.size).toBe(2);
    expect([await store.consume('a', 'x'), await store.consume('b', 'x'), await store.consume('c', 'x')]).toEqual([
      false,
      true,
      true,
    ]);
  });
  it('sweeps expired entries when issuing', async () => {
    let now = NOW;
    const store = new MemoryNonceStore({ now: () => now.getTime() });
    await store.issue('old', minutes(5), 'x');
    now = minutes(10);
    await store.issue('new', minutes(15), 'x');
    expect(store.size).toBe(1);
  });
  // Every issue swept the whole map: 100,000 issues took 91 s, and POST /challenges is keyless.
  it('looks through its entries at most once a second, however many it issues', async () => {
    let now = NOW.getTime();
    const store = new MemoryNonceStore({ now: () => now, maxEntries: 1000 });
    for (let i = 0; i < 5000; i++) await store.issue(`n${i}`, new Date(now + 1), 'x');
    expect([store.sweeps, store.size]).toEqual([1, 1000]);
    now += 999;
    await store.issue('late', new Date(now + 60_000), 'x');
    expect(store.sweeps).toBe(1);
    now += 1;
    await store.issue('later', new Date(now + 60_000), 'x');
    expect([store.sweeps, store.size]).toEqual([2, 2]);
    expect(await store.consume('n4999', 'x')).toBe(false);
  });
});

describe('Ed25519KeyCache', () => {
  it('makes each key once, keeps at most its bound (the least recently used goes first), and refuses a bad key', () => {
    const cache = new Ed25519KeyCache(2);
    const keys = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));
    const first = cache.get(keys[0]!);
    expect(cache.get(keys[0]!)).toBe(first);
    cache.get(keys[1]!);
    cache.get(keys[2]!);
    expect(cache.size).toBe(2);
    expect(cache.get(keys[0]!)).not.toBe(first);
    expect(() => cache.get(new Uint8Array(31))).toThrow(RangeError);
  });

  it('a key in use stays: a hit makes it the most recently used', () => {
    const cache = new Ed25519KeyCache(2);
    const [a, b, c] = [1, 2, 3].map((n) => new Uint8Array(32).fill(n));
    const first = cache.get(a!);
    const second = cache.get(b!);
    cache.get(a!);
    cache.get(c!); // b is the least recently used
    expect(cache.get(a!)).toBe(first);
    expect(cache.get(b!)).not.toBe(second);
  });
});
