import { describe, expect, it } from 'vitest';
import {
  checkKeys,
  checkMetadata,
  checkServices,
  REGISTRY_ERRORS,
  type RecordViolation,
  validateRecord,
} from './record-rules.ts';
import type { DidRecordInput } from './types.ts';

const CONTROLLER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
// did:key test vectors: Ed25519 seeds 0..3 and X25519 keys.
const ED = [
  'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  'z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
  'z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf',
  'z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ',
];
const X = ['z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW', 'z6LSrHyXiPBhUbvPUtyUCdf32sniiMGPTAesgHrtEa4FePtr'];
const k = (publicKeyMultibase: string) => ({ publicKeyMultibase });
const svc = (idSuffix: string, serviceType = 'LinkedDomains', serviceEndpoint = 'https://issuer.example.org') => ({
  idSuffix,
  serviceType,
  serviceEndpoint,
});

const BASE: DidRecordInput = {
  controller: CONTROLLER,
  authentication: [k(ED[0]!)],
  assertionMethod: [],
  keyAgreement: [],
  services: [],
};
const rec = (over: Partial<DidRecordInput> & Record<string, unknown>) => ({ ...BASE, ...over }) as DidRecordInput;

describe.each([
  { name: 'holder', given: BASE },
  {
    name: 'full issuer and recipient at every maximum',
    given: rec({
      authentication: [k(ED[0]!), k(ED[1]!), k(ED[2]!)],
      assertionMethod: [k(ED[0]!), k(ED[1]!), k(ED[3]!)],
      keyAgreement: [k(X[0]!)],
      services: [
        svc('a'),
        svc('b-2', 'x'.repeat(64)),
        svc('c'.repeat(32), 'DIDCommMessaging', 'https://h.example/' + 'p'.repeat(237)),
      ],
      metadataUri: 'https://issuer.example.org/.well-known/did-metadata.json',
      metadataHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    }),
  },
  { name: 'metadataUri alone', given: rec({ metadataUri: 'https://issuer.example.org/meta.json' }) },
])('validateRecord accepts $name', ({ given }) => {
  it('returns no violation', () => expect(validateRecord(given)).toEqual([]));
});

type Want = Pick<RecordViolation, 'code' | 'field'>;

describe.each<{ name: string; given: DidRecordInput; want: Want[]; chain?: number }>([
  {
    name: 'no authentication key',
    given: rec({ authentication: [] }),
    want: [{ code: 'key_count_invalid', field: 'authentication' }],
    chain: 5,
  },
  {
    name: 'four authentication keys',
    given: rec({ authentication: ED.map(k) }),
    want: [{ code: 'key_count_invalid', field: 'authentication' }],
    chain: 5,
  },
  {
    name: 'four assertion keys',
    given: rec({ assertionMethod: ED.map(k) }),
    want: [{ code: 'key_count_invalid', field: 'assertionMethod' }],
    chain: 6,
  },
  {
    name: 'two keyAgreement keys',
    given: rec({ keyAgreement: X.map(k) }),
    want: [{ code: 'key_count_invalid', field: 'keyAgreement' }],
    chain: 7,
  },
  {
    name: 'four services',
    given: rec({ services: [svc('a'), svc('b'), svc('c'), svc('d')] }),
    want: [{ code: 'service_invalid', field: 'services' }],
    chain: 8,
  },
  {
    name: 'duplicate authentication key',
    given: rec({ authentication: [k(ED[0]!), k(ED[1]!), k(ED[0]!)] }),
    want: [{ code: 'duplicate_key', field: 'authentication[2].publicKeyMultibase' }],
    chain: 9,
  },
  {
    name: 'duplicate assertion key',
    given: rec({ assertionMethod: [k(ED[1]!), k(ED[1]!)] }),
    want: [{ code: 'duplicate_key', field: 'assertionMethod[1].publicKeyMultibase' }],
    chain: 9,
  },
  {
    name: 'key longer than 128',
    given: rec({ authentication: [k('z' + '6'.repeat(128))] }),
    want: [{ code: 'key_invalid', field: 'authentication[0].publicKeyMultibase' }],
    chain: 10,
  },
  {
    name: 'empty key',
    given: rec({ authentication: [k('')] }),
    want: [{ code: 'key_invalid', field: 'authentication[0].publicKeyMultibase' }],
    chain: 11,
  },
  {
    name: 'X25519 key for authentication',
    given: rec({ authentication: [k(X[0]!)] }),
    want: [{ code: 'key_invalid', field: 'authentication[0].publicKeyMultibase' }],
  },
  {
    name: 'Ed25519 key for keyAgreement',
    given: rec({ keyAgreement: [k(ED[0]!)] }),
    want: [{ code: 'key_invalid', field: 'keyAgreement[0].publicKeyMultibase' }],
  },
  {
    name: 'truncated key',
    given: rec({ assertionMethod: [k(ED[0]!.slice(0, -1))] }),
    want: [{ code: 'key_invalid', field: 'assertionMethod[0].publicKeyMultibase' }],
  },
  {
    name: 'key not base58btc',
    given: rec({ assertionMethod: [k('mO+0BAQ==')] }),
    want: [{ code: 'key_invalid', field: 'assertionMethod[0].publicKeyMultibase' }],
  },
  {
    name: 'serviceType longer than 64',
    given: rec({ services: [svc('a', 'x'.repeat(65))] }),
    want: [{ code: 'service_invalid', field: 'services[0].serviceType' }],
    chain: 12,
  },
  {
    name: 'serviceType of 64 bytes but 33 characters',
    given: rec({ services: [svc('a', 'é'.repeat(33))] }),
    want: [{ code: 'service_invalid', field: 'services[0].serviceType' }],
    chain: 12,
  },
  {
    name: 'idSuffix longer than 32',
    given: rec({ services: [svc('a'.repeat(33))] }),
    want: [{ code: 'service_invalid', field: 'services[0].idSuffix' }],
    chain: 13,
  },
  ...['-a', 'a-', 'A', 'a_b', 'a.b', '', 'a b', 'é'].map((idSuffix) => ({
    name: `idSuffix ${JSON.stringify(idSuffix)}`,
    given: rec({ services: [svc(idSuffix)] }),
    want: [{ code: 'service_invalid' as const, field: 'services[0].idSuffix' }],
    chain: 14,
  })),
  ...[
    'http://issuer.example.org',
    'HTTPS://issuer.example.org',
    'ftp://x',
    'issuer.example.org',
    'https://',
    'https:///path',
    ' https://a.example',
  ].map((url) => ({
    name: `serviceEndpoint ${JSON.stringify(url)}`,
    given: rec({ services: [svc('a', 'LinkedDomains', url)] }),
    want: [{ code: 'url_not_https' as const, field: 'services[0].serviceEndpoint' }],
    chain: 15,
  })),
  {
    name: 'serviceEndpoint longer than 255',
    given: rec({ services: [svc('a', 'LinkedDomains', 'https://h.example/' + 'p'.repeat(238))] }),
    // The registry's #15 covers scheme and length; off-chain the length is a service rule.
    want: [{ code: 'service_invalid', field: 'services[0].serviceEndpoint' }],
  },
  {
    name: 'metadataUri over http',
    given: rec({ metadataUri: 'http://issuer.example.org/meta.json' }),
    want: [{ code: 'url_not_https', field: 'metadataUri' }],
    chain: 16,
  },
  {
    name: 'metadataUri longer than 255',
    given: rec({ metadataUri: 'https://h.example/' + 'p'.repeat(238) }),
    // The registry's #16 covers scheme and length; off-chain the length is a record rule.
    want: [{ code: 'invalid_record', field: 'metadataUri' }],
  },
  {
    name: 'empty serviceType',
    given: rec({ services: [svc('a', '')] }),
    want: [{ code: 'service_invalid', field: 'services[0].serviceType' }],
    chain: 18,
  },
  {
    name: 'metadataHash without metadataUri',
    given: rec({ metadataHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }),
    want: [{ code: 'metadata_inconsistent', field: 'metadataHash' }],
    chain: 20,
  },
  {
    name: 'duplicate idSuffix',
    given: rec({ services: [svc('inbox'), svc('other'), svc('inbox')] }),
    want: [{ code: 'service_invalid', field: 'services[2].idSuffix' }],
    chain: 21,
  },
  {
    name: 'metadataHash not 32 bytes of hex',
    given: rec({
      metadataUri: 'https://a.example/m',
      metadataHash: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855',
    }),
    want: [{ code: 'invalid_record', field: 'metadataHash' }],
  },
  {
    name: 'contract controller',
    given: rec({ controller: 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ' }),
    want: [{ code: 'invalid_record', field: 'controller' }],
  },
  {
    name: 'controller with a bad checksum',
    given: rec({ controller: CONTROLLER.slice(0, -1) + 'A' }),
    want: [{ code: 'invalid_record', field: 'controller' }],
  },
  {
    name: 'services not an array',
    given: rec({ services: null as never }),
    want: [{ code: 'invalid_record', field: 'services' }],
  },
  {
    name: 'several problems, in field order',
    given: rec({
      authentication: [],
      keyAgreement: [k(X[0]!), k(X[0]!)],
      services: [svc('Bad', '', 'http://x')],
      metadataHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    }),
    want: [
      { code: 'key_count_invalid', field: 'authentication' },
      { code: 'key_count_invalid', field: 'keyAgreement' },
      { code: 'duplicate_key', field: 'keyAgreement[1].publicKeyMultibase' },
      { code: 'service_invalid', field: 'services[0].idSuffix' },
      { code: 'service_invalid', field: 'services[0].serviceType' },
      { code: 'url_not_https', field: 'services[0].serviceEndpoint' },
      { code: 'metadata_inconsistent', field: 'metadataHash' },
    ],
  },
])('validateRecord rejects $name', ({ given, want, chain }) => {
  it('reports the violations', () => {
    expect(validateRecord(given).map(({ code, field }) => ({ code, field }))).toEqual(want);
  });
  if (chain !== undefined) {
    it(`carries the code of the registry's #${chain} ${REGISTRY_ERRORS[chain]?.name}`, () => {
      expect(want[0]!.code).toBe(REGISTRY_ERRORS[chain]!.code);
    });
  }
});

describe('validateRecord on lists of thousands (bounded work and answers)', () => {
  it.each([
    {
      list: 'authentication',
      given: rec({ authentication: Array.from({ length: 60_000 }, () => ({})) as never }),
      count: 'key_count_invalid',
    },
    {
      list: 'services',
      given: rec({ services: Array.from({ length: 60_000 }, () => ({})) as never }),
      count: 'service_invalid',
    },
  ])('$list of 60,000 entries: the count once, then the first 10 entries only', ({ list, given, count }) => {
    const v = validateRecord(given);
    expect(v[0]).toMatchObject({ code: count, field: list });
    const perItem = new Set(v.slice(1).map((x) => /^\w+\[(\d+)\]/.exec(x.field)?.[1]));
    expect([...perItem].map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });
});

// The parts validateRecord is made of, each alone: what one of them reports is what it adds to the list.
describe('the checks of one part of a record', () => {
  const run = (check: (add: (code: string, field: string) => void) => void) => {
    const got: string[] = [];
    check((code, field) => got.push(`${code} ${field}`));
    return got;
  };

  it('checkKeys: the type of the relationship, its count and distinct keys', () => {
    expect(run((add) => checkKeys('authentication', [k(ED[0]!), k(ED[1]!)], add))).toEqual([]);
    expect(run((add) => checkKeys('keyAgreement', [k(ED[0]!)], add))).toEqual([
      'key_invalid keyAgreement[0].publicKeyMultibase',
    ]);
    expect(run((add) => checkKeys('authentication', [], add))).toEqual(['key_count_invalid authentication']);
    expect(run((add) => checkKeys('assertionMethod', [k(ED[2]!), k(ED[2]!)], add))).toEqual([
      'duplicate_key assertionMethod[1].publicKeyMultibase',
    ]);
    expect(run((add) => checkKeys('assertionMethod', 'z6Mk', add))).toEqual(['invalid_record assertionMethod']);
  });

  it('checkServices: each field of each service, and the suffixes distinct across services', () => {
    expect(run((add) => checkServices([svc('a'), svc('b')], add))).toEqual([]);
    expect(run((add) => checkServices([svc('a'), svc('a', '', 'http://x.example')], add))).toEqual([
      'service_invalid services[1].idSuffix',
      'service_invalid services[1].serviceType',
      'url_not_https services[1].serviceEndpoint',
    ]);
    expect(run((add) => checkServices([{ idSuffix: 'A' }], add))).toEqual([
      'service_invalid services[0].idSuffix',
      'invalid_record services[0].serviceType',
      'invalid_record services[0].serviceEndpoint',
    ]);
    expect(run((add) => checkServices({}, add))).toEqual(['invalid_record services']);
  });

  it('checkMetadata: a hash needs a URI, both optional', () => {
    expect(run((add) => checkMetadata(undefined, undefined, add))).toEqual([]);
    expect(run((add) => checkMetadata('https://m.example/d.json', 'a'.repeat(64), add))).toEqual([]);
    expect(run((add) => checkMetadata(undefined, 'a'.repeat(64), add))).toEqual(['metadata_inconsistent metadataHash']);
    expect(run((add) => checkMetadata('ftp://m.example', 'A'.repeat(64), add))).toEqual([
      'url_not_https metadataUri',
      'invalid_record metadataHash',
    ]);
  });
});

describe('REGISTRY_ERRORS', () => {
  it('covers the 21 registry errors of docs/chain-abi.md', () => {
    expect(Object.keys(REGISTRY_ERRORS).map(Number)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });
});
