import { describe, expect, it } from 'vitest';
import { ApiError } from '../context.ts';
import type { VaultAppDeps } from '../context.ts';
import { checkBatchSize, checkIssuerDid, checkLengths, checkVcData } from './issue-rules.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const vc = (o: Record<string, unknown>) => JSON.stringify(o);

const codeOf = (f: () => void): string => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof ApiError ? `${e.status} ${e.code}` : `other ${String(e)}`;
  }
};

describe('checkVcData', () => {
  it.each([
    { given: vc({ '@context': [V2], credentialSubject: { id: 'did:ledger:testnet:x' } }), want: 'ok' },
    { given: vc({ '@context': V2, credentialSubject: { id: 'did:example:1' } }), want: 'ok' },
    { given: vc({ '@context': [V2], credentialSubject: [{ id: 'did:a:1' }, { id: 'did:a:2' }] }), want: 'ok' },
    { given: 'not json', want: '400 vcData_invalid' },
    { given: '[1,2]', want: '400 vcData_invalid' },
    {
      given: vc({ '@context': ['https://www.w3.org/2018/credentials/v1'], credentialSubject: { id: 'did:a:1' } }),
      want: '400 vcData_invalid',
    },
    { given: vc({ credentialSubject: { id: 'did:a:1' } }), want: '400 vcData_invalid' },
    { given: vc({ '@context': [V2], credentialSubject: {} }), want: '400 vcData_invalid' },
    { given: vc({ '@context': [V2], credentialSubject: [{ id: 'did:a:1' }, {}] }), want: '400 vcData_invalid' },
    { given: vc({ '@context': [V2] }), want: '400 vcData_invalid' },
  ])('$given → $want', ({ given, want }) => {
    expect(codeOf(() => checkVcData('', given))).toBe(want);
  });

  // The stored text is what holders present: a repeated name reads as two credentials, and a lone surrogate
  // escape cannot be stored as UTF-8 (the vault would hold U+FFFD instead of what was sent).
  it.each([
    [
      'a repeated member name',
      `{"@context":["${V2}"],"validUntil":"2001-01-01T00:00:00Z","validUntil":"2099-01-01T00:00:00Z","credentialSubject":{"id":"did:a:1"}}`,
      /member "\/validUntil" appears twice/,
    ],
    [
      'a repeated name deep inside',
      `{"@context":["${V2}"],"credentialSubject":{"id":"did:a:1","role":"x","role":"y"}}`,
      /"\/credentialSubject\/role" appears twice/,
    ],
    [
      'a lone surrogate escape',
      `{"@context":["${V2}"],"credentialSubject":{"id":"did:a:1","role":"\\ud800"}}`,
      /"\/credentialSubject\/role" holds a lone surrogate/,
    ],
    [
      'a repeated name after a string with a \\u escape and then \\"',
      `{"@context":["${V2}"],"name":"caf\\u00e9 \\"x\\"","validUntil":"2001-01-01T00:00:00Z","validUntil":"2099-01-01T00:00:00Z","credentialSubject":{"id":"did:a:1"}}`,
      /member "\/validUntil" appears twice/,
    ],
    [
      'a lone surrogate after a \\u escape and then \\"',
      `{"@context":["${V2}"],"credentialSubject":{"id":"did:a:1","role":"\\u0041\\"\\ud800"}}`,
      /"\/credentialSubject\/role" holds a lone surrogate/,
    ],
  ])('refuses vcData that is not I-JSON: %s', (_name, given, message) => {
    expect(codeOf(() => checkVcData('vcs[1].', given))).toBe('400 vcData_invalid');
    expect(() => checkVcData('vcs[1].', given)).toThrow(message);
  });

  it('names the batch entry in the message', () => {
    try {
      checkVcData('vcs[3].', 'nope');
    } catch (e) {
      expect((e as ApiError).message).toMatch(/^vcs\[3\]\.vcData/);
    }
  });
});

describe('checkLengths and checkBatchSize', () => {
  it.each([
    { where: '' as const, vcId: 'a'.repeat(64), vcData: 'x'.repeat(10_000), want: 'ok' },
    { where: '' as const, vcId: 'a'.repeat(65), vcData: 'x', want: '400 vcId_too_long' },
    { where: '' as const, vcId: 'a', vcData: 'x'.repeat(10_001), want: '400 vcData_too_long' },
    { where: '' as const, vcId: '😀'.repeat(16), vcData: 'x', want: 'ok' },
    { where: '' as const, vcId: '😀'.repeat(17), vcData: 'x', want: '400 vcId_too_long' },
    { where: '' as const, vcId: 'é'.repeat(33), vcData: 'x', want: '400 vcId_too_long' },
    // 10,000 characters as JSON Schema counts them, although 20,000 UTF-16 units.
    { where: '' as const, vcId: 'a', vcData: '😀'.repeat(10_000), want: 'ok' },
    { where: '' as const, vcId: 'a', vcData: '😀'.repeat(10_001), want: '400 vcData_too_long' },
    { where: 'vcs[2].' as const, vcId: 'a'.repeat(65), vcData: 'x', want: '400 vcs[2].vcId_too_long' },
    { where: 'vcs[0].' as const, vcId: 'a', vcData: 'x'.repeat(10_001), want: '400 vcs[0].vcData_too_long' },
  ])('$where $want', ({ where, vcId, vcData, want }) => {
    expect(codeOf(() => checkLengths(where, vcId, vcData))).toBe(want);
  });

  it.each([
    { n: 0, want: '400 batch_too_large' },
    { n: 1, want: 'ok' },
    { n: 5, want: 'ok' },
    { n: 6, want: '400 batch_too_large' },
  ])('batch of $n → $want', ({ n, want }) => {
    expect(codeOf(() => checkBatchSize(n))).toBe(want);
  });
});

describe('checkIssuerDid', () => {
  const ISSUER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
  const DID = 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a';
  const KEY = { publicKeyMultibase: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' };
  const depsWith = (record: Record<string, unknown> | undefined) =>
    ({
      profile: { network: 'testnet' },
      chain: { registry: { get: async () => (record ? { record } : undefined) } },
    }) as unknown as VaultAppDeps;
  const issuerRecord = {
    controller: ISSUER,
    authentication: [KEY],
    assertionMethod: [KEY],
    keyAgreement: [],
    services: [],
    deactivated: false,
  };
  const outcome = (record: Record<string, unknown> | undefined) =>
    checkIssuerDid(depsWith(record), DID, ISSUER).then(
      () => 'ok',
      (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code}: ${e.message}` : `other ${String(e)}`),
    );

  it('accepts an issuer record: an authentication key and an assertionMethod key', async () => {
    expect(await outcome(issuerRecord)).toBe('ok');
  });

  it('refuses a record without an assertionMethod key (a holder DID): 400 issuerDid_invalid saying why', async () => {
    expect(await outcome({ ...issuerRecord, assertionMethod: [] })).toBe(
      `400 issuerDid_invalid: issuerDid ${DID} has no assertionMethod key, so it cannot issue credentials; add one to its record (resolver: POST /v1/dids/stellar/{did}/update)`,
    );
  });

  it('keeps the more specific codes first: deactivated, then another controller', async () => {
    expect(await outcome({ ...issuerRecord, assertionMethod: [], deactivated: true })).toMatch(
      /^400 issuerDid_deactivated/,
    );
    expect(await outcome({ ...issuerRecord, assertionMethod: [], controller: 'G' + 'A'.repeat(55) })).toMatch(
      /^400 issuerDid_controller_mismatch/,
    );
    expect(await outcome(undefined)).toMatch(/^400 issuerDid_not_found/);
  });
});
