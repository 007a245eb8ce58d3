import { describe, expect, it } from 'vitest';
import { CREDENTIAL_CHECKS, wantedChecks } from './verification.ts';
import { referenceStatus, sameCredential, type VaultReference } from './verification-credential-status.ts';
import { checkIssuerDid, issuerBinding, issuerMethod, unboundIssuerWarning } from './verification-issuer.ts';
import { issuerOf, type RequestResolver } from './verification-resolver.ts';
import { proofSummary, validityOf } from './verification-results.ts';
import { problem } from './verification-problems.ts';
import { statusEntries, type VaultSlot } from './verification-status.ts';
import {
  credentialStructureProblems,
  duplicateProblems,
  presentationStructureProblems,
} from './verification-structure.ts';

const NOW = new Date('2026-11-24T10:00:00Z');
const V2 = 'https://www.w3.org/ns/credentials/v2';
const VC = {
  '@context': [V2],
  type: ['VerifiableCredential'],
  issuer: 'did:key:z6Mk',
  credentialSubject: { id: 'did:example:1' },
};
const VAULT = 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ';

describe('validityOf', () => {
  it.each([
    { given: {}, check: 'validFrom', want: undefined },
    { given: { validFrom: '2026-01-01T00:00:00Z' }, check: 'validFrom', want: null },
    { given: { validUntil: '2027-01-01T00:00:00Z' }, check: 'validUntil', want: null },
    { given: { validFrom: '2026-12-01T00:00:00Z' }, check: 'validFrom', want: 'not_yet_valid' },
    { given: { validUntil: '2026-11-24T09:59:59Z' }, check: 'validUntil', want: 'expired' },
    { given: { issuanceDate: '2027-01-01T00:00:00Z' }, check: 'validFrom', want: 'not_yet_valid' },
    { given: { expirationDate: '2020-01-01T00:00:00Z' }, check: 'validUntil', want: 'expired' },
    { given: { validFrom: 'yesterday' }, check: 'validFrom', want: 'invalid_date' },
    { given: { validUntil: 42 }, check: 'validUntil', want: 'invalid_date' },
    // Date.parse reads these as dates (2001-01-01, year 2099 in local time, 2001-03-07): VC Data Model 2.0
    // §4.9 wants an XML Schema dateTimeStamp, a time zone included.
    { given: { validUntil: '1' }, check: 'validUntil', want: 'invalid_date' },
    { given: { validFrom: '2099' }, check: 'validFrom', want: 'invalid_date' },
    { given: { validUntil: 'March 7' }, check: 'validUntil', want: 'invalid_date' },
    { given: { validUntil: '2099-01-01T00:00:00' }, check: 'validUntil', want: 'invalid_date' },
    { given: { expirationDate: '2099-01-01' }, check: 'validUntil', want: 'invalid_date' },
    { given: { validUntil: '2099-01-01T00:00:00.123+02:00' }, check: 'validUntil', want: null },
  ] as const)('$given $check → $want', ({ given, check, want }) => {
    const v = validityOf(given, check, NOW);
    expect(v === undefined ? undefined : (v.problem?.reason ?? null)).toBe(want);
  });
});

describe('credentialStructureProblems (VC Data Model 2.0 §4; the VC API verifier suite\'s "MUST not verify" cases)', () => {
  it('a well-formed credential has none', () => {
    expect(credentialStructureProblems(VC)).toEqual([]);
    expect(
      credentialStructureProblems({
        ...VC,
        '@context': [V2, { ex: 'https://ex.example#' }],
        type: 'VerifiableCredential',
      }),
    ).toEqual([]);
    expect(
      credentialStructureProblems({ ...VC, issuer: { id: 'did:key:z6Mk' }, credentialSubject: [{ a: 1 }, { b: 2 }] }),
    ).toEqual([]);
    // A validity period of one instant, in two time zones; another whose order only the zones decide.
    for (const period of [
      { validFrom: '2030-01-01T00:00:00Z', validUntil: '2030-01-01T01:00:00+01:00' },
      { validFrom: '2030-01-01T00:30:00+01:00', validUntil: '2030-01-01T00:00:00Z' },
    ])
      expect(credentialStructureProblems({ ...VC, ...period })).toEqual([]);
  });

  type Row = [string, Record<string, unknown>, string];
  it.each<Row>([
    ['no @context', { '@context': undefined }, 'context_invalid'],
    ...['string', {}, null, 10, true].map(
      (v): Row => [`@context ${JSON.stringify(v)}`, { '@context': v }, 'context_invalid'],
    ),
    ...[[], {}, null, 10, true].map(
      (v): Row => [`@context [${JSON.stringify(v)}]`, { '@context': [v] }, 'context_invalid'],
    ),
    ['@context with an item that is not a URL', { '@context': [V2, 'https ://not-a-url/v1'] }, 'context_invalid'],
    ['@context with a relative reference', { '@context': [V2, 'contexts/v1'] }, 'context_invalid'],
    ['no type', { type: undefined }, 'type_invalid'],
    ...['string', {}, null, 10, true].map((v): Row => [`type ${JSON.stringify(v)}`, { type: v }, 'type_invalid']),
    ...[[], {}, null, 10, true].map((v): Row => [`type [${JSON.stringify(v)}]`, { type: [v] }, 'type_invalid']),
    ['no issuer', { issuer: undefined }, 'issuer_invalid'],
    ...[[], null, 10, true].map((v): Row => [`issuer ${JSON.stringify(v)}`, { issuer: v }, 'issuer_invalid']),
    ['no credentialSubject', { credentialSubject: undefined }, 'credential_subject_invalid'],
    ...['string', null, 10, true, []].map(
      (v): Row => [`credentialSubject ${JSON.stringify(v)}`, { credentialSubject: v }, 'credential_subject_invalid'],
    ),
    [
      'five status entries',
      { credentialStatus: Array.from({ length: 5 }, () => ({ type: 'X' })) },
      'status_entry_invalid',
    ],
    ['a status entry without type', { credentialStatus: { id: 'x' } }, 'status_entry_invalid'],
    // VC Data Model 2.0 §4.9, whatever the checks: the W3C data model suite's 4.09 cases.
    ['validFrom a date without time', { validFrom: '2020-01-01' }, 'invalid_date'],
    ['validUntil without time zone', { validUntil: '2030-01-01T00:00:00' }, 'invalid_date'],
    ['validFrom a number', { validFrom: 1577836800 }, 'invalid_date'],
    [
      'validFrom after validUntil',
      { validFrom: '2030-01-01T00:00:00Z', validUntil: '2029-12-31T23:59:59Z' },
      'valid_until_before_valid_from',
    ],
    [
      'issuanceDate after expirationDate (VC 1.1)',
      { issuanceDate: '2030-01-01T00:00:00Z', expirationDate: '2020-01-01T00:00:00+01:00' },
      'valid_until_before_valid_from',
    ],
  ])('%s → %s', (_name, change, reason) => {
    const vc: Record<string, unknown> = { ...VC, ...change };
    for (const k of Object.keys(change)) if (change[k] === undefined) delete vc[k];
    const problems = credentialStructureProblems(vc);
    expect(problems.map((p) => [p.title, p.reason])).toEqual([['MALFORMED_VALUE_ERROR', reason]]);
  });
});

describe('presentationStructureProblems', () => {
  const VP = { '@context': [V2], type: ['VerifiablePresentation'], holder: 'did:key:z6Mk', verifiableCredential: [VC] };
  it.each([
    ['well-formed', {}, []],
    ['one credential, not a list', { verifiableCredential: VC }, []],
    ['no credential', { verifiableCredential: undefined }, []],
    ['no holder (optional, VC Data Model 2.0 §4.13)', { holder: undefined }, []],
    ['a holder object without id', { holder: { name: 'x' } }, ['holder_invalid']],
    ['a holder that is not a DID', { holder: 'https://holder.example' }, ['holder_invalid']],
    ['eleven credentials', { verifiableCredential: Array.from({ length: 11 }, () => VC) }, ['credentials_invalid']],
    ['a credential that is a string (enveloped)', { verifiableCredential: ['eyJ…'] }, ['credentials_invalid']],
    ['a credential type', { type: ['VerifiableCredential'] }, ['type_invalid']],
  ])('%s → %j', (_name, change, reasons) => {
    const vp: Record<string, unknown> = { ...VP, ...change };
    for (const k of Object.keys(change)) if ((change as Record<string, unknown>)[k] === undefined) delete vp[k];
    expect(presentationStructureProblems(vp).map((p) => p.reason)).toEqual(reasons);
  });
});

describe('duplicateProblems', () => {
  it('reports the first repeated member inside the document only', () => {
    expect(
      duplicateProblems(
        ['/options/checks', '/verifiableCredential/validUntil', '/verifiableCredential/a'],
        '/verifiableCredential',
        'credential',
      ),
    ).toEqual([
      expect.objectContaining({
        title: 'PARSING_ERROR',
        reason: 'duplicate_member',
        detail: expect.stringContaining('"/validUntil"'),
      }),
    ]);
    expect(duplicateProblems(['/verifiableCredentialX/a'], '/verifiableCredential', 'credential')).toEqual([]);
  });
});

describe('statusEntries', () => {
  const entry = {
    type: 'LedgerVaultStatusEntry',
    statusPurpose: 'revocation',
    network: 'testnet',
    vaultContract: VAULT,
    vcId: 'vc-1',
  };
  it.each([
    ['one entry', entry, ['ledger']],
    ['beside another kind', [{ type: 'BitstringStatusListEntry' }, entry], ['other', 'ledger']],
    ['two entries', [entry, entry], ['ledger', 'invalid']],
    ['another purpose', { ...entry, statusPurpose: 'suspension' }, ['invalid']],
    ['a network alias', { ...entry, network: 'public' }, ['invalid']],
    [
      'an account for a contract',
      { ...entry, vaultContract: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR' },
      ['invalid'],
    ],
    ['a vcId over 64 characters', { ...entry, vcId: 'x'.repeat(65) }, ['invalid']],
  ])('%s → %j', (_name, credentialStatus, kinds) => {
    expect(statusEntries({ credentialStatus }).map((e) => e.kind)).toEqual(kinds);
  });
});

describe('proofSummary', () => {
  it('keeps the Data Integrity members, cut to 256 characters; null for what is not a proof object', () => {
    const long = 'z'.repeat(10_000);
    expect(
      proofSummary({ type: 'DataIntegrityProof', proofValue: long, extra: long, domain: ['a', 'b'], previousProof: 7 }),
    ).toEqual({
      type: 'DataIntegrityProof',
      proofValue: `${'z'.repeat(256)}…`,
      domain: ['a', 'b'],
    });
    expect(proofSummary('text')).toBeNull();
    expect(proofSummary([{}])).toBeNull();
  });
});

describe('problem', () => {
  it('pairs each title with its W3C or own type, and marks warnings', () => {
    expect(problem('PROOF_VERIFICATION_ERROR', 'proof', 'signature_invalid', 'x')).toEqual({
      type: 'https://w3id.org/security#PROOF_VERIFICATION_ERROR',
      title: 'PROOF_VERIFICATION_ERROR',
      detail: 'x',
      level: 'error',
      check: 'proof',
      reason: 'signature_invalid',
    });
    expect(problem('PARSING_ERROR', undefined, 'duplicate_member', 'x').type).toBe(
      'https://www.w3.org/TR/vc-data-model#PARSING_ERROR',
    );
    expect(problem('STATUS_NOT_CHECKED', 'credentialStatus', 'no_status_entry', 'x').level).toBe('warning');
  });
});

describe('issuerOf and sameCredential', () => {
  it.each([
    { given: { issuer: 'did:ledger:testnet:x' }, want: 'did:ledger:testnet:x' },
    { given: { issuer: { id: 'did:ledger:testnet:y', name: 'Uni' } }, want: 'did:ledger:testnet:y' },
    { given: { issuer: { name: 'no id' } }, want: undefined },
    { given: {}, want: undefined },
  ])('issuerOf($given) → $want', ({ given, want }) => {
    expect(issuerOf(given)).toBe(want);
  });

  it('compares credentials by their canonical JSON, not key order', () => {
    expect(sameCredential({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(sameCredential({ a: 1 }, { a: 2 })).toBe(false);
  });
});

// The steps verifyCredential is made of, each alone (the routes' HTTP tests run them together over a ledger).
describe('wantedChecks', () => {
  it.each([
    { checks: undefined, byReference: false, want: [...CREDENTIAL_CHECKS].sort() },
    { checks: ['validFrom'], byReference: false, want: ['validFrom'] },
    { checks: ['credentialStatus'], byReference: true, want: ['credentialStatus', 'proof'] },
    { checks: ['issuerAllowed'], byReference: false, want: ['issuerAllowed', 'proof'] },
    { checks: ['issuerAllowed'], byReference: true, want: ['issuerAllowed'] },
  ] as const)('$checks, by reference $byReference → $want', ({ checks, byReference, want }) => {
    expect([...wantedChecks(checks, byReference)].sort()).toEqual(want);
  });
});

describe('referenceStatus', () => {
  const slot = (status: VaultSlot['status']): VaultSlot => ({
    vault: VAULT,
    vcId: 'vc-1',
    issuerDid: 'did:key:z',
    status,
  });
  const run = (reference: VaultReference) => {
    const problems: string[] = [];
    const result = referenceStatus({ profile: { network: 'testnet' } } as never, reference, (p) =>
      problems.push(p.reason),
    );
    return { verified: result.verified, problems };
  };
  const ref = { owner: 'G', vault: VAULT, vcId: 'vc-1' };

  it('the status the vault reports for the slot', () => {
    expect(run({ ...ref, slot: slot({ status: 'valid' }) })).toEqual({ verified: true, problems: [] });
    expect(run({ ...ref, slot: slot({ status: 'revoked', since: '2026-01-01T00:00:00Z' }) })).toEqual({
      verified: false,
      problems: ['revoked'],
    });
  });

  it('a failure when the vault holds another credential under the vcId, whatever its status', () => {
    expect(run({ ...ref, slot: slot({ status: 'valid' }), notTheStoredCredential: true })).toEqual({
      verified: false,
      problems: ['not_the_stored_credential'],
    });
  });
});

describe('checkIssuerDid', () => {
  const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
  const resolver = (error?: string, deactivated = false): RequestResolver => ({
    resolve: async () =>
      ({
        didResolutionMetadata: error ? { error } : {},
        didDocument: null,
        didDocumentMetadata: deactivated ? { deactivated } : {},
      }) as never,
    keyless: false,
    rdfBytes: 0,
    takeStatusList: () => true,
    rethrow: () => undefined,
  });
  const run = async (issuer: string, method: 'ledger' | 'key' | 'url' | 'other', r = resolver(), stored?: string) => {
    const problems: string[] = [];
    const outcome = await checkIssuerDid({ profile: { network: 'testnet' } } as never, issuer, method, stored, r, (p) =>
      problems.push(p.reason),
    );
    return [outcome, ...problems];
  };

  it.each([
    ['a registered did:ledger', () => run(DID, 'ledger'), ['passed']],
    ['a did:key', () => run('did:key:z6Mk', 'key'), ['not_applicable']],
    ['an issuer that is not a DID', () => run('https://vc.example/issuers/5678', 'url'), ['not_applicable']],
    ['another method', () => run('did:example:1', 'other'), ['failed', 'did_method_not_supported']],
    [
      'another network',
      () => run('did:ledger:mainnet:nohsyhu2pu7uaulcoocjljvxza', 'ledger'),
      ['failed', 'network_mismatch'],
    ],
    ['not registered', () => run(DID, 'ledger', resolver('notFound')), ['failed', 'did_not_found']],
    ['deactivated', () => run(DID, 'ledger', resolver(undefined, true)), ['failed', 'did_deactivated']],
    [
      'another than the vault stored',
      () => run(DID, 'ledger', resolver(), 'did:key:z6Mk'),
      ['failed', 'stored_issuer_mismatch'],
    ],
  ])('%s', async (_name, given, want) => {
    expect(await given()).toEqual(want);
  });
});

describe('an issuer that is not a DID (the W3C vectors: issuer https://vc.example/issuers/5678, proof by a did:key)', () => {
  const URL_ISSUER = 'https://vc.example/issuers/5678';
  const deps = { jsonLdContexts: undefined, fetchJson: undefined } as never;

  it.each([
    [URL_ISSUER, 'url'],
    ['urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33', 'url'],
    ['did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', 'ledger'],
    ['did:key:z6Mk', 'key'],
    // No web reads: did:web has no resolver, so it is a method this verifier does not support.
    ['did:web:issuer.example', 'other'],
    ['did:example:5678', 'other'],
    // A URI scheme is case-insensitive: DID:… is a DID, refused as one, never a URL that binds nothing.
    ['DID:key:z6Mk', 'other'],
  ] as const)('%s → issuerDid method %s', (issuer, method) => {
    expect(issuerMethod(deps, issuer)).toBe(method);
  });

  it('binds no key: no expected controller, no co-signers; a DID issuer (any case) binds its own', () => {
    expect(issuerBinding(deps, URL_ISSUER)).not.toHaveProperty('expectedController');
    expect(issuerBinding(deps, URL_ISSUER)).not.toHaveProperty('coSigners');
    expect(issuerBinding(deps, 'did:key:z6Mk')).toMatchObject({ expectedController: 'did:key:z6Mk', coSigners: true });
    expect(issuerBinding(deps, 'DID:key:z6Mk')).toMatchObject({ expectedController: 'DID:key:z6Mk', coSigners: true });
  });

  it('a warning of the proof check says nothing binds the key; none for a DID issuer', () => {
    expect(unboundIssuerWarning(URL_ISSUER)).toEqual({
      type: 'urn:credential-vault:problem:ISSUER_BINDING_NOT_CHECKED',
      title: 'ISSUER_BINDING_NOT_CHECKED',
      detail: expect.stringContaining(`the issuer ${URL_ISSUER} is not a DID`),
      level: 'warning',
      check: 'proof',
      reason: 'issuer_not_did',
    });
    expect(unboundIssuerWarning('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza')).toBeUndefined();
    expect(unboundIssuerWarning('DID:key:z6Mk')).toBeUndefined();
  });
});
