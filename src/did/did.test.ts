import { describe, expect, it } from 'vitest';
import { bytesToDidId, decodeDidParam, didIdToBytes, formatDid, generateDid, isValidDid, parseDid } from './did.ts';

// RFC 4648 base32 (lowercase, padding stripped), cross-checked with Python's base64.b32encode.
const BASE32 = [
  { hex: '00000000000000000000000000000000', didId: 'aaaaaaaaaaaaaaaaaaaaaaaaaa' },
  { hex: 'ffffffffffffffffffffffffffffffff', didId: '77777777777777777777777774' },
  { hex: '000102030405060708090a0b0c0d0e0f', didId: 'aaaqeayeaudaocajbifqydiob4' },
  { hex: '6b8f2c1e9a7d3f405162738495a6b7c8', didId: 'nohsyhu2pu7uaulcoocjljvxza' },
];

describe.each(BASE32)('didId ↔ bytes $hex', ({ hex, didId }) => {
  it('encodes', () => expect(bytesToDidId(Buffer.from(hex, 'hex'))).toBe(didId));
  it('decodes', () => expect(Buffer.from(didIdToBytes(didId)).toString('hex')).toBe(hex));
});

describe.each([
  {
    given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
    want: { network: 'testnet', didId: 'nohsyhu2pu7uaulcoocjljvxza' },
  },
  {
    given: 'did:ledger:mainnet:aaaqeayeaudaocajbifqydiob4',
    want: { network: 'mainnet', didId: 'aaaqeayeaudaocajbifqydiob4' },
  },
  {
    given: 'did:ledger:testnet:77777777777777777777777774',
    want: { network: 'testnet', didId: '77777777777777777777777774' },
  },
])('parseDid($given) accepts', ({ given, want }) => {
  it('returns the parts', () => {
    expect(parseDid(given)).toEqual({ ok: true, value: { did: given, ...want } });
    expect(isValidDid(given)).toBe(true);
  });
});

describe.each([
  { given: 'did:ledger:public:nohsyhu2pu7uaulcoocjljvxza', why: 'network alias' },
  { given: 'did:ledger:Testnet:nohsyhu2pu7uaulcoocjljvxza', why: 'network case' },
  { given: 'did:ledger:testnet:NOHSYHU2PU7UAULCOOCJLJVXZA', why: 'uppercase didId' },
  { given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxz', why: '25 characters' },
  { given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzaa', why: '27 characters' },
  { given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxz1', why: '1 is not base32' },
  { given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza=', why: 'padding' },
  { given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb', why: 'non-zero padding bits (same bytes as …za)' },
  { given: 'did:ledger:testnet:77777777777777777777777777', why: 'non-zero padding bits' },
  { given: 'did:other:testnet:nohsyhu2pu7uaulcoocjljvxza', why: 'other method' },
  { given: ' did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', why: 'leading space' },
  { given: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza\n', why: 'trailing newline' },
  { given: 'did%3Aledger%3Atestnet%3Anohsyhu2pu7uaulcoocjljvxza', why: 'still encoded' },
  { given: '', why: 'empty' },
  { given: 42, why: 'not a string' },
])('parseDid rejects $why', ({ given }) => {
  it('returns invalidDid without throwing', () => {
    const r = parseDid(given);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe('invalidDid');
    expect(isValidDid(given)).toBe(false);
  });
});

describe.each([
  { given: 'nohsyhu2pu7uaulcoocjljvxzb' },
  { given: 'nohsyhu2pu7uaulcoocjljvxz' },
  { given: 'nohsyhu2pu7uaulcoocjljvxz!' },
])('didIdToBytes($given)', ({ given }) => {
  it('throws on a non-canonical didId', () => expect(() => didIdToBytes(given)).toThrow(RangeError));
});

describe.each([{ n: 15 }, { n: 17 }, { n: 0 }])('bytesToDidId of $n bytes', ({ n }) => {
  it('throws', () => expect(() => bytesToDidId(new Uint8Array(n))).toThrow(RangeError));
});

describe.each([
  {
    network: 'testnet' as const,
    hex: '6b8f2c1e9a7d3f405162738495a6b7c8',
    want: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
  },
  {
    network: 'mainnet' as const,
    hex: '00000000000000000000000000000000',
    want: 'did:ledger:mainnet:aaaaaaaaaaaaaaaaaaaaaaaaaa',
  },
])('generateDid on $network', ({ network, hex, want }) => {
  it('formats 16 injected random bytes', () => {
    const g = generateDid({ network, random: () => Buffer.from(hex, 'hex') });
    expect(g.did).toBe(want);
    expect(formatDid(g)).toBe(want);
    expect(parseDid(g.did)).toEqual({ ok: true, value: g });
  });
});

describe('generateDid with the real random source', () => {
  it('always yields a valid, round-tripping DID', () => {
    for (let i = 0; i < 200; i++) {
      const g = generateDid({ network: 'testnet' });
      expect(parseDid(g.did).ok).toBe(true);
      expect(bytesToDidId(didIdToBytes(g.didId))).toBe(g.didId);
    }
  });
});

describe.each([
  { raw: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', want: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza' },
  { raw: 'did%3Aledger%3Atestnet%3Anohsyhu2pu7uaulcoocjljvxza', want: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza' },
  { raw: 'did%3aledger%3atestnet%3anohsyhu2pu7uaulcoocjljvxza', want: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza' },
  {
    raw: 'did%253Aledger%253Atestnet%253Anohsyhu2pu7uaulcoocjljvxza',
    want: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
  },
  { raw: 'did%3Aledger%3Atestnet%3A%E0%A4%A', want: 'did%3Aledger%3Atestnet%3A%E0%A4%A' },
])('decodeDidParam($raw)', ({ raw, want }) => {
  it('decodes', () => expect(decodeDidParam(raw)).toBe(want));
});
