import { randomBytes, randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  MAX_ONCHAIN_VC_DATA,
  VcDataTooLargeError,
  VcDecryptError,
  createKeyring,
  decryptVcData,
  encryptVcData,
  isEnvelope,
  openVcData,
} from './envelope.ts';

const OWNER = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const OTHER_OWNER = 'GCEZWKCA5VLDNRLN3RPRJMRZOX3Z6G5CHCGSNFHEYVXM3XOJMDS674JZ';
const keyA = { kid: 'kA', key: randomBytes(32) };
const keyB = { kid: 'kB', key: randomBytes(32) };
const ring = createKeyring({ keys: [keyA], activeKid: 'kA' });

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A W3C VC 2.0 credential of exactly `size` characters: a transcript with ids and a Data Integrity proof. */
function realisticVc(size: number): string {
  const courses: object[] = [];
  const vc = {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', 'ExampleTranscriptCredential'],
    issuer: { id: 'did:ledger:testnet:ab2cd3ef4gh5ij6kl7mn2op3qr', name: 'Example University' },
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: {
      id: 'did:ledger:testnet:zy2xw3vu4ts5rq6po7nm2lk3ji',
      degree: { type: 'BachelorDegree', name: 'Bachelor of Science and Arts' },
      note: '',
      courses,
    },
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      created: '2026-01-01T00:00:00Z',
      verificationMethod: 'did:ledger:testnet:ab2cd3ef4gh5ij6kl7mn2op3qr#auth-1',
      proofPurpose: 'assertionMethod',
      proofValue: `z${Array.from(randomBytes(86), (b) => B58[b % 58]).join('')}`,
    },
  };
  const titles = ['Algorithms', 'Databases', 'Networks', 'Compilers', 'Linear Algebra'];
  for (let i = 0; JSON.stringify(vc).length < size - 200; i++) {
    courses.push({
      id: `urn:uuid:${randomUUID()}`,
      code: `CS${100 + i}`,
      title: `${titles[i % 5]} ${i}`,
      credits: (i % 4) + 2,
      grade: ['A', 'B+', 'A-', 'B'][i % 4],
      completed: `2025-0${(i % 9) + 1}-15`,
    });
  }
  vc.credentialSubject.note = 'x'.repeat(size - JSON.stringify(vc).length);
  const text = JSON.stringify(vc);
  expect(text.length).toBe(size);
  return text;
}

const binding = { owner: OWNER, vcId: 'vc-1' };

describe('envelope: round trip', () => {
  it.each([
    { given: 'empty', plaintext: '' },
    { given: 'small JSON', plaintext: '{"a":1}' },
    { given: 'unicode', plaintext: JSON.stringify({ name: 'Zoë 🎓 Ünïcödé' }) },
    { given: 'realistic 2,000-char VC', plaintext: realisticVc(2000) },
    { given: 'realistic 10,000-char VC', plaintext: realisticVc(10_000) },
  ])('$given', ({ plaintext }) => {
    const data = encryptVcData(ring, { ...binding, plaintext });
    expect(data).toMatch(/^cv1\.kA\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(isEnvelope(data)).toBe(true);
    expect(decryptVcData(ring, { ...binding, data })).toBe(plaintext);
  });

  it('uses a fresh IV every time', () => {
    const ivs = new Set<string>();
    const datas = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const data = encryptVcData(ring, { ...binding, plaintext: '{"same":true}' });
      ivs.add(data.split('.')[2]!);
      datas.add(data);
    }
    expect(ivs.size).toBe(50);
    expect(datas.size).toBe(50);
  });
});

describe('envelope: the issuing wallet (cv2)', () => {
  const ISSUER = 'GDWUSKGGFDI4FRXK5EBTRECZSVQSSWJHHJOGH6JWG3AUMFFMQ435DIAG';
  const data = encryptVcData(ring, { ...binding, plaintext: '{"a":1}', issuer: ISSUER });

  it('records the wallet and opens to the plaintext and the wallet', () => {
    expect(data).toMatch(new RegExp(`^cv2\\.kA\\.${ISSUER}\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+$`));
    expect(isEnvelope(data)).toBe(true);
    expect(openVcData(ring, { ...binding, data })).toEqual({ plaintext: '{"a":1}', issuer: ISSUER });
    expect(decryptVcData(ring, { ...binding, data })).toBe('{"a":1}');
    expect(openVcData(ring, { ...binding, data: encryptVcData(ring, { ...binding, plaintext: '{}' }) })).toEqual({
      plaintext: '{}',
    });
  });

  it.each([
    ['another wallet written over it', data.replace(ISSUER, OTHER_OWNER), 'authentication_failed'],
    ['the wallet removed (relabelled cv1)', data.replace(`cv2.kA.${ISSUER}.`, 'cv1.kA.'), 'authentication_failed'],
    ['text that is no account', data.replace(ISSUER, 'G-not-an-account'), 'malformed'],
  ])('%s → %s', (_name, bad, code) => {
    expect(() => openVcData(ring, { ...binding, data: bad })).toThrow(expect.objectContaining({ code }));
  });

  it('refuses to record something that is not an account', () => {
    expect(() => encryptVcData(ring, { ...binding, plaintext: '{}', issuer: 'did:key:z6Mk' })).toThrow(RangeError);
  });
});

describe('envelope: tamper and binding', () => {
  const data = encryptVcData(ring, { ...binding, plaintext: realisticVc(1500) });
  const [v, kid, iv, ct] = data.split('.') as [string, string, string, string];
  const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);

  it.each([
    {
      given: 'a flipped ciphertext character',
      data: [v, kid, iv, flip(ct, 10)].join('.'),
      code: 'authentication_failed',
    },
    {
      given: 'a flipped tag character',
      data: [v, kid, iv, flip(ct, ct.length - 3)].join('.'),
      code: 'authentication_failed',
    },
    { given: 'a flipped IV character', data: [v, kid, flip(iv, 3), ct].join('.'), code: 'authentication_failed' },
    { given: 'a truncated ciphertext', data: [v, kid, iv, ct.slice(0, 12)].join('.'), code: 'malformed' },
    { given: 'a missing part', data: [v, kid, ct].join('.'), code: 'malformed' },
    { given: 'another version', data: ['cv2', kid, iv, ct].join('.'), code: 'malformed' },
    { given: 'non-base64url characters', data: [v, kid, iv, `${ct}+`].join('.'), code: 'malformed' },
    { given: 'plaintext JSON', data: '{"@context":[]}', code: 'malformed' },
    { given: 'an unknown key id', data: [v, 'kZ', iv, ct].join('.'), code: 'unknown_kid' },
  ])('$given → $code', ({ data: bad, code }) => {
    expect(() => decryptVcData(ring, { ...binding, data: bad })).toThrow(VcDecryptError);
    try {
      decryptVcData(ring, { ...binding, data: bad });
    } catch (err) {
      expect((err as VcDecryptError).code).toBe(code);
    }
  });

  it.each([
    { given: 'another owner', owner: OTHER_OWNER, vcId: 'vc-1' },
    { given: 'another vcId', owner: OWNER, vcId: 'vc-2' },
    { given: 'owner and vcId shifted across the separator', owner: `${OWNER}|vc`, vcId: '1' },
  ])('is bound to owner and vcId: $given fails', ({ owner, vcId }) => {
    expect(() => decryptVcData(ring, { owner, vcId, data })).toThrow(
      expect.objectContaining({ code: 'authentication_failed' }),
    );
  });

  it('relabelling with another key id of the keyring fails', () => {
    const both = createKeyring({ keys: [keyA, { kid: 'kC', key: keyA.key }], activeKid: 'kA' });
    // Same key bytes under another id: the key id is in the associated data, so it still fails.
    expect(() => decryptVcData(both, { ...binding, data: [v, 'kC', iv, ct].join('.') })).toThrow(
      expect.objectContaining({ code: 'authentication_failed' }),
    );
  });
});

describe('envelope: rotation', () => {
  it('old key ids still decrypt, new envelopes use the active key', () => {
    const old = encryptVcData(ring, { ...binding, plaintext: '{"v":"old"}' });
    const rotated = createKeyring({ keys: [keyB, keyA], activeKid: 'kB' });
    expect(decryptVcData(rotated, { ...binding, data: old })).toBe('{"v":"old"}');
    const fresh = encryptVcData(rotated, { ...binding, plaintext: '{"v":"new"}' });
    expect(fresh.split('.')[1]).toBe('kB');
    expect(decryptVcData(rotated, { ...binding, data: fresh })).toBe('{"v":"new"}');
    expect(() => decryptVcData(ring, { ...binding, data: fresh })).toThrow(
      expect.objectContaining({ code: 'unknown_kid' }),
    );
  });

  it.each([
    { given: 'a short key', keys: [{ kid: 'k1', key: randomBytes(16) }], activeKid: 'k1' },
    { given: 'a key id with a dot', keys: [{ kid: 'k.1', key: randomBytes(32) }], activeKid: 'k.1' },
    { given: 'an active id not in the ring', keys: [keyA], activeKid: 'kB' },
    { given: 'duplicate ids', keys: [keyA, keyA], activeKid: 'kA' },
  ])('createKeyring refuses $given', ({ keys, activeKid }) => {
    expect(() => createKeyring({ keys, activeKid })).toThrow(RangeError);
  });
});

describe('envelope: size on-chain', () => {
  it('a realistic 10,000-character VC fits the 10,000-character limit with room to spare', () => {
    const vc = realisticVc(10_000);
    const data = encryptVcData(ring, { ...binding, plaintext: vc });
    // Brotli shrinks credential JSON to about a quarter; base64url and the header add about a third.
    expect(data.length).toBeLessThan(5_000);
    expect(data.length).toBeLessThanOrEqual(MAX_ONCHAIN_VC_DATA);
  });

  it('brotli beats deflate-raw on credential JSON (why the envelope uses it)', () => {
    for (const size of [2_000, 10_000]) {
      const raw = Buffer.from(realisticVc(size));
      expect(brotliCompressSync(raw).length).toBeLessThan(deflateRawSync(raw, { level: 9 }).length);
    }
  });

  it('an incompressible payload whose envelope exceeds the limit is refused before it goes on-chain', () => {
    // 10,000 characters of random printable ASCII: about 6.5 bits each, so no compression helps.
    const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter(
      (c) => c !== '"' && c !== '\\',
    );
    const noise = JSON.stringify({
      blob: Array.from(randomBytes(9_989), (b) => printable[b % printable.length]).join(''),
    });
    expect(noise.length).toBe(10_000);
    expect(() => encryptVcData(ring, { ...binding, plaintext: noise })).toThrow(VcDataTooLargeError);
  });
});
