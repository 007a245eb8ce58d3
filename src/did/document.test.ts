import { describe, expect, it } from 'vitest';
import {
  DID_CONTEXT,
  buildDidDocument,
  buildResolutionResult,
  negotiateRepresentation,
  resolutionError,
  resolutionStatus,
  xmlDateTime,
} from './document.ts';
import type { DidRecord, ParsedDid } from './types.ts';

const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const PARSED: ParsedDid = { did: DID, network: 'testnet', didId: 'nohsyhu2pu7uaulcoocjljvxza' };
const CONTROLLER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
// did:key test vectors (seeds 0 and 1; the X25519 key of seed 0).
const ED_A = 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';
const ED_B = 'z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG';
const X_A = 'z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW';

function record(over: Partial<DidRecord> = {}): DidRecord {
  return {
    controller: CONTROLLER,
    authentication: [{ publicKeyMultibase: ED_A }],
    assertionMethod: [],
    keyAgreement: [],
    services: [],
    version: 1,
    createdLedger: 100,
    updatedLedger: 100,
    deactivated: false,
    ...over,
  };
}

const vm = (fragment: string, publicKeyMultibase: string) => ({
  id: `${DID}#${fragment}`,
  type: 'Multikey',
  controller: DID,
  publicKeyMultibase,
});

describe.each([
  {
    name: 'holder: one authentication key',
    record: record(),
    want: { id: DID, verificationMethod: [vm('auth-1', ED_A)], authentication: ['#auth-1'] },
  },
  {
    name: 'issuer: authentication + two assertion keys (same key in two relationships)',
    record: record({ assertionMethod: [{ publicKeyMultibase: ED_A }, { publicKeyMultibase: ED_B }] }),
    want: {
      id: DID,
      verificationMethod: [vm('auth-1', ED_A), vm('assert-1', ED_A), vm('assert-2', ED_B)],
      authentication: ['#auth-1'],
      assertionMethod: ['#assert-1', '#assert-2'],
    },
  },
  {
    name: 'messaging recipient with services',
    record: record({
      authentication: [{ publicKeyMultibase: ED_A }, { publicKeyMultibase: ED_B }],
      assertionMethod: [{ publicKeyMultibase: ED_B }],
      keyAgreement: [{ publicKeyMultibase: X_A }],
      services: [
        { idSuffix: 'inbox', serviceType: 'DIDCommMessaging', serviceEndpoint: 'https://inbox.example.org/didcomm' },
        { idSuffix: 'linked-domain-1', serviceType: 'LinkedDomains', serviceEndpoint: 'https://issuer.example.org' },
      ],
    }),
    want: {
      id: DID,
      verificationMethod: [vm('auth-1', ED_A), vm('auth-2', ED_B), vm('assert-1', ED_B), vm('keyagr-1', X_A)],
      authentication: ['#auth-1', '#auth-2'],
      assertionMethod: ['#assert-1'],
      keyAgreement: ['#keyagr-1'],
      service: [
        { id: `${DID}#service-inbox`, type: 'DIDCommMessaging', serviceEndpoint: 'https://inbox.example.org/didcomm' },
        { id: `${DID}#service-linked-domain-1`, type: 'LinkedDomains', serviceEndpoint: 'https://issuer.example.org' },
      ],
    },
  },
  {
    name: 'deactivated: tombstone',
    record: record({ deactivated: true, authentication: [], version: 4 }),
    want: { id: DID },
  },
  {
    name: 'deactivated keeps the tombstone even if keys were left',
    record: record({ deactivated: true }),
    want: { id: DID },
  },
])('buildDidDocument: $name', ({ record: rec, want }) => {
  it('application/did+json: no @context', () => {
    const doc = buildDidDocument({ did: DID, record: rec, representation: 'application/did+json' });
    expect(doc).toEqual(want);
    expect(JSON.stringify(doc)).toBe(JSON.stringify(want));
    expect(doc).not.toHaveProperty('controller');
  });
  it('application/did+ld+json (the default): @context first', () => {
    const doc = buildDidDocument({ did: DID, record: rec });
    expect(doc).toEqual({ '@context': DID_CONTEXT, ...want });
    expect(Object.keys(doc)[0]).toBe('@context');
  });
});

const T100 = new Date('2025-03-01T12:00:00.750Z');
const T250 = new Date('2025-03-01T12:12:30.000Z');
const LEDGERS: Record<number, Date> = { 100: T100, 250: T250 };

describe.each([
  {
    name: 'active, times known',
    record: record({ version: 3, updatedLedger: 250 }),
    ledgerTime: (s: number) => LEDGERS[s],
    status: 200,
    meta: {
      versionId: '3',
      created: '2025-03-01T12:00:00Z',
      updated: '2025-03-01T12:12:30Z',
      deactivated: false,
      method: { network: 'testnet', stellarAccount: CONTROLLER },
    },
  },
  {
    name: 'active, no ledger clock',
    record: record(),
    ledgerTime: undefined,
    status: 200,
    meta: { versionId: '1', deactivated: false, method: { network: 'testnet', stellarAccount: CONTROLLER } },
  },
  {
    name: 'deactivated, created time unknown',
    record: record({ version: 5, updatedLedger: 250, deactivated: true, authentication: [] }),
    ledgerTime: (s: number) => (s === 250 ? T250 : undefined),
    status: 410,
    meta: {
      versionId: '5',
      updated: '2025-03-01T12:12:30Z',
      deactivated: true,
      method: { network: 'testnet', stellarAccount: CONTROLLER },
    },
  },
])('buildResolutionResult: $name', ({ record: rec, ledgerTime, status, meta }) => {
  it.each(['application/did+ld+json', 'application/did+json'] as const)('as %s', (representation) => {
    const result = buildResolutionResult({ parsed: PARSED, record: rec, representation, ledgerTime });
    expect(result.didDocumentMetadata).toEqual(meta);
    expect(result.didResolutionMetadata).toEqual({ contentType: representation });
    expect(result.didDocument).toEqual(buildDidDocument({ did: DID, record: rec, representation }));
    expect(resolutionStatus(result)).toBe(status);
  });
});

describe.each([
  { error: 'invalidDid' as const, status: 400 },
  { error: 'notFound' as const, status: 404 },
  { error: 'representationNotSupported' as const, status: 406 },
  { error: 'internalError' as const, status: 502 },
])('resolutionError($error)', ({ error, status }) => {
  it(`is a result with no document, status ${status}`, () => {
    const r = resolutionError(error, 'why');
    expect(r).toEqual({ didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error, message: 'why' } });
    expect(resolutionStatus(r)).toBe(status);
    expect(resolutionError(error).didResolutionMetadata).toEqual({ error });
  });
});

describe.each([
  { accept: undefined, want: ['application/did+ld+json', 'application/did+ld+json'] },
  { accept: '', want: ['application/did+ld+json', 'application/did+ld+json'] },
  { accept: '*/*', want: ['application/did+ld+json', 'application/did+ld+json'] },
  { accept: 'application/*', want: ['application/did+ld+json', 'application/did+ld+json'] },
  { accept: 'application/did+ld+json', want: ['application/did+ld+json', 'application/did+ld+json'] },
  { accept: 'application/did+json', want: ['application/did+json', 'application/did+json'] },
  { accept: 'Application/DID+JSON', want: ['application/did+json', 'application/did+json'] },
  { accept: 'application/json', want: ['application/did+json', 'application/json'] },
  {
    accept: 'application/did+json, application/did+ld+json',
    want: ['application/did+ld+json', 'application/did+ld+json'],
  },
  {
    accept: 'application/did+ld+json;q=0.5, application/did+json',
    want: ['application/did+json', 'application/did+json'],
  },
  { accept: 'text/html, application/json;q=0.9, */*;q=0.1', want: ['application/did+json', 'application/json'] },
  { accept: '*/*, application/did+ld+json;q=0', want: ['application/did+json', 'application/did+json'] },
  {
    accept: 'application/did+ld+json;profile="https://w3id.org/did-resolution"',
    want: ['application/did+ld+json', 'application/did+ld+json'],
  },
  { accept: 'text/html', want: undefined },
  { accept: 'application/xml, text/*', want: undefined },
  { accept: 'application/did-resolution', want: ['application/did+ld+json', 'application/did-resolution'] },
  {
    accept: 'application/ld+json;profile="https://w3id.org/did-resolution"',
    want: ['application/did+ld+json', 'application/ld+json;profile="https://w3id.org/did-resolution"'],
  },
  {
    accept: 'application/ld+json; profile=https://w3id.org/did-resolution; q=0.9',
    want: ['application/did+ld+json', 'application/ld+json;profile="https://w3id.org/did-resolution"'],
  },
  {
    accept: 'application/ld+json',
    want: ['application/did+ld+json', 'application/ld+json;profile="https://w3id.org/did-resolution"'],
  },
  {
    accept: 'application/did-resolution;q=0.5, application/did+json',
    want: ['application/did+json', 'application/did+json'],
  },
  { accept: 'application/ld+json;profile="https://example.org/other"', want: undefined },
  { accept: 'application/did+json;q=0', want: undefined },
])('negotiateRepresentation($accept)', ({ accept, want }) => {
  it('picks the representation and the media type', () => {
    const got = negotiateRepresentation(accept);
    expect(got && [got.representation, got.mediaType]).toEqual(want);
  });
});

describe.each([
  { given: '2025-03-01T12:00:00.750Z', want: '2025-03-01T12:00:00Z' },
  { given: '1970-01-01T00:00:00.000Z', want: '1970-01-01T00:00:00Z' },
])('xmlDateTime($given)', ({ given, want }) => {
  it('drops the fraction', () => expect(xmlDateTime(new Date(given))).toBe(want));
});
