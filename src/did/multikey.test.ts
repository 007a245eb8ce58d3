import { createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58btcDecode, base58btcEncode, decodeMultikey, encodeMultikey } from './multikey.ts';

// did:key test vectors (w3c-ccg/did-method-key, test-vectors/ed25519-x25519.json): Ed25519 seeds 0..4,
// their public keys (publicKeyBase58) and the did:key method-specific ids, which are the Multikeys.
const ED25519 = [
  {
    seed: '00',
    base58: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
    multikey: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  },
  {
    seed: '01',
    base58: '6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt',
    multikey: 'z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
  },
  {
    seed: '02',
    base58: '8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH',
    multikey: 'z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf',
  },
  {
    seed: '03',
    base58: 'HPYVwAQmskwT1qEEeRzhoomyfyupJGASQQtCXSNG8XS2',
    multikey: 'z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ',
  },
  {
    seed: '04',
    base58: 'J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x',
    multikey: 'z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL',
  },
];

// The X25519 key-agreement pairs of the same file (privateKeyBase58 → publicKeyBase58 → Multikey).
const X25519 = [
  {
    priv: '6QN8DfuN9hjgHgPvLXqgzqYE3jRRGRrmJQZkd5tL8paR',
    base58: '7By6kV2t2d188odEM4ExAve1UithKT6dLva4dwsDT3ak',
    multikey: 'z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW',
  },
  {
    priv: 'HBTcN2MrXNRj9xF9oi8QqYyuEPv3JLLjQKuEgW9oxVKP',
    base58: 'FcoNC5NqP9CePWbhfz95iHaEsCjGkZUioK9Ck7Qiw286',
    multikey: 'z6LSrHyXiPBhUbvPUtyUCdf32sniiMGPTAesgHrtEa4FePtr',
  },
  {
    priv: 'ACa4PPJ1LnPNq1iwS33V3Akh7WtnC71WkKFZ9ccM6sX2',
    base58: 'A5fe37PAxhX5WNKngBpGHhC1KpNE7nwbK9oX2tqwxYxU',
    multikey: 'z6LSkkqoZRC34AEpbkhZCqLDcHQVAxuLpQ7kC8XCXMVUfvjE',
  },
  {
    priv: 'FZrzd1osCnbK6y6MJzMBW1RcVfL524sNKhSbqRwMuwHT',
    base58: '7ocvdvQinfqtyQ3Dh9aA7ggoVCQkmfaoueZazHETDv3B',
    multikey: 'z6LSiUo6AEDat8Ze4nQzDo67SGuHLLwsUGkxndHGUjsywHow',
  },
  {
    priv: '8Zybi2bqQ8YB4uPm3iy2rkDCmbB4wkG2Y2ig5YAkgNdg',
    base58: 'FbQtKTG6FjWSeYZyowWYv2KBcCbwmHqH6HUuxdJ4xkwP',
    multikey: 'z6LSrGb3qm4xMCEBjvwkLb2WEcXfTM94Tu1RyGCbT5wbg8i9',
  },
];

// did:key test-vectors/x25519.json (public keys only), and transmute did-key.js's x25519 fixture (hex).
const X25519_PUBLIC = [
  {
    base58: '4Dy8E9UaZscuPUf2GLxV44RCNL7oxmEXXkgWXaug1WKV',
    multikey: 'z6LSeu9HkTHSfLLeUs2nnzUSNedgDUevfNQgQjQC23ZCit6F',
  },
  {
    base58: 'J3PiFeuSyLugy4DKn87TwK5cnruRgPtxouzXUqg99Avp',
    multikey: 'z6LStiZsmxiK4odS4Sb6JmdRFuJ6e1SYP157gtiCyJKfrYha',
  },
  {
    base58: 'CgTbngDMe7yHHfxPMvhpaFRpFoQWKgXAgwenJj8PsFDe',
    multikey: 'z6LSoMdmJz2Djah2P4L9taDmtqeJ6wwd2HhKZvNToBmvaczQ',
  },
  {
    base58: 'C4QXUPqG8CNwUPV2yQRmu2u3ZCQ4CwVnh5qxxiYjYRmr',
    multikey: 'z6LSnjagzhe8Df6gZmroW3wjDd7XQLwAuYfwa4ZeTBCGFoYc',
    hex: 'a44fe61b4f7cadd42363730a2b60f949443a64e116ddae99e93ed9e12827cc21',
  },
];

// PKCS#8 wrappers of a raw 32-byte private key (RFC 8410).
const PKCS8 = { Ed25519: '302e020100300506032b657004220420', X25519: '302e020100300506032b656e04220420' };

function publicFromPrivate(kind: 'Ed25519' | 'X25519', raw: Uint8Array): Uint8Array {
  const der = Buffer.concat([Buffer.from(PKCS8[kind], 'hex'), raw]);
  const jwk = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url');
}

describe.each(ED25519)('Ed25519 did:key vector, seed $seed', ({ seed, base58, multikey }) => {
  const raw = base58btcDecode(base58)!;
  it('node derives the published public key from the seed', () => {
    const seedBytes = Buffer.alloc(32);
    seedBytes[31] = parseInt(seed, 16);
    expect(Buffer.from(publicFromPrivate('Ed25519', seedBytes))).toEqual(Buffer.from(raw));
  });
  it('encodes to the published Multikey', () => expect(encodeMultikey('Ed25519', raw)).toBe(multikey));
  it('decodes back to the raw key', () => {
    expect(decodeMultikey(multikey, 'Ed25519')).toEqual({ ok: true, type: 'Ed25519', publicKey: raw });
  });
  it('is refused where an X25519 key is expected', () => expect(decodeMultikey(multikey, 'X25519').ok).toBe(false));
});

describe.each(X25519)('X25519 did:key vector $multikey', ({ priv, base58, multikey }) => {
  const raw = base58btcDecode(base58)!;
  it('node derives the published public key from the private key', () => {
    expect(Buffer.from(publicFromPrivate('X25519', base58btcDecode(priv)!))).toEqual(Buffer.from(raw));
  });
  it('encodes to the published Multikey', () => expect(encodeMultikey('X25519', raw)).toBe(multikey));
  it('decodes back to the raw key', () => {
    expect(decodeMultikey(multikey, 'X25519')).toEqual({ ok: true, type: 'X25519', publicKey: raw });
  });
  it('is refused where an Ed25519 key is expected', () => expect(decodeMultikey(multikey, 'Ed25519').ok).toBe(false));
});

describe.each(X25519_PUBLIC)('X25519 public vector $multikey', ({ base58, multikey, hex }) => {
  it('round-trips', () => {
    const raw = base58btcDecode(base58)!;
    if (hex) expect(Buffer.from(raw).toString('hex')).toBe(hex);
    expect(encodeMultikey('X25519', raw)).toBe(multikey);
    expect(decodeMultikey(multikey)).toEqual({ ok: true, type: 'X25519', publicKey: raw });
  });
});

// base58btc: the multibase spec's sample, Bitcoin-style leading zeros.
describe.each([
  { hex: '', text: '' },
  { hex: '00', text: '1' },
  { hex: '000001', text: '112' },
  { hex: Buffer.from('hello world').toString('hex'), text: 'StV1DL6CwTryKyV' },
  { hex: Buffer.from('yes mani !').toString('hex'), text: '7paNL19xttacUY' },
  { hex: '0000287fb4cd', text: '11233QC4' },
])('base58btc $text', ({ hex, text }) => {
  it('encodes', () => expect(base58btcEncode(Buffer.from(hex, 'hex'))).toBe(text));
  it('decodes', () => expect(Buffer.from(base58btcDecode(text)!).toString('hex')).toBe(hex));
});

describe.each([
  { given: '', why: 'empty' },
  { given: 42, why: 'not a string' },
  { given: 'u7QE', why: 'base64url multibase, not base58btc' },
  { given: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW0', why: '0 is not base58' },
  { given: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW', why: 'one character short: 33 bytes' },
  { given: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWpp', why: 'one character long: 35 bytes' },
  { given: 'zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme', why: 'secp256k1 multicodec' },
  { given: 'z' + '1'.repeat(34), why: 'zeros' },
  { given: 'z' + 'a'.repeat(128), why: 'longer than 128 characters' },
])('decodeMultikey rejects $why', ({ given }) => {
  it('returns an error value', () => expect(decodeMultikey(given).ok).toBe(false));
});

describe.each([{ n: 31 }, { n: 33 }])('encodeMultikey of $n bytes', ({ n }) => {
  it('throws', () => expect(() => encodeMultikey('Ed25519', new Uint8Array(n))).toThrow(RangeError));
});
