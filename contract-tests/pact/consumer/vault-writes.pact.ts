// Consumer contract with the vault API, part 2: the prepare / submit write routes. One table row per
// interaction; each row's body is type-checked against the generated types of its route.
import { describe, expect, it } from 'vitest';
import { unwrap, type PrepareBody, type VaultClient, type VaultWritePath } from '../../../src/client/index.ts';
import { EXAMPLE, VAULT_PROVIDER, VAULT_SPEC, VAULT_STATES as S, withInjected } from '../shared.ts';
import {
  PREPARED,
  SUBMITTED,
  consumerPact,
  expectApiError,
  keyHeader,
  vaultError,
  type StateParams,
} from './support.ts';

const pact = consumerPact(VAULT_PROVIDER, VAULT_SPEC);

/** The key a row sends: the provider-state value's name and the pact's example. */
type KeyRef = readonly [name: string, example: string];
const KEY: KeyRef = ['key', EXAMPLE.key];
const OWNER_KEY: KeyRef = ['ownerKey', EXAMPLE.ownerKey];
const ISSUER_KEY: KeyRef = ['issuerKey', EXAMPLE.issuerKey];
const STRANGER_KEY: KeyRef = ['strangerKey', EXAMPLE.strangerKey];

type Outcome = 'prepared' | 'submitted' | { status: number; code: string };

interface WriteCase {
  path: VaultWritePath;
  description: string;
  state?: string;
  params?: StateParams;
  key: KeyRef;
  body: object;
  /** Body fields the provider state supplies: field → state value name. */
  inject?: Record<string, string>;
  headers?: Record<string, string>;
  outcome: Outcome;
}

/** A prepare row, its body checked against the route's prepare schema. */
const prepare = <P extends VaultWritePath>(
  path: P,
  row: Omit<WriteCase, 'path' | 'body'> & { body: PrepareBody<P> },
): WriteCase => ({ path, ...row });
/** A submit row: `{signedXdr}` from the provider state. */
const submit = (path: VaultWritePath, row: Omit<WriteCase, 'path' | 'body' | 'inject'>): WriteCase => ({
  path,
  ...row,
  body: { signedXdr: EXAMPLE.xdr },
  inject: { signedXdr: 'signedXdr' },
});

const VC_DATA = JSON.stringify({
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  validFrom: '2026-07-01T00:00:00Z',
  credentialSubject: {
    id: EXAMPLE.holderDid,
    degree: { type: 'BachelorDegree', name: 'Bachelor of Science in Mathematics' },
  },
});
const owner = { owner: 'owner', sourcePublicKey: 'owner' };
const issueBody = (vcId: string) => ({
  owner: EXAMPLE.owner,
  vcId,
  vcData: VC_DATA,
  issuer: EXAMPLE.issuer,
  issuerDid: EXAMPLE.issuerDid,
  sourcePublicKey: EXAMPLE.issuer,
});
const issueInject = { owner: 'owner', issuer: 'issuer', issuerDid: 'issuerDid', sourcePublicKey: 'issuer' };
const ownerOnly = { owner: EXAMPLE.owner, sourcePublicKey: EXAMPLE.owner };
const access = { owner: EXAMPLE.owner, issuer: EXAMPLE.issuer, sourcePublicKey: EXAMPLE.owner };
const accessInject = { ...owner, issuer: 'issuer' };
const vcOne = { vcId: 'vc-1' };

const CASES: WriteCase[] = [
  // vault deployment
  prepare('/contracts/vault/create', {
    description: 'a vault deployment to prepare',
    state: S.apiKey,
    key: KEY,
    body: { owner: EXAMPLE.owner, didUri: EXAMPLE.holderDid, sourcePublicKey: EXAMPLE.owner },
    inject: { owner: 'wallet', sourcePublicKey: 'wallet' },
    outcome: 'prepared',
  }),
  submit('/contracts/vault/create', {
    description: 'a signed vault deployment',
    state: S.signedVaultCreate,
    key: KEY,
    outcome: 'submitted',
  }),
  prepare('/contracts/vault/create', {
    description: 'a vault deployment for an owner who has one',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: { owner: EXAMPLE.owner, didUri: EXAMPLE.holderDid, sourcePublicKey: EXAMPLE.owner },
    inject: owner,
    outcome: { status: 409, code: 'vault_already_deployed' },
  }),
  prepare('/contracts/sponsored-vault/create', {
    description: 'a sponsored vault deployment to prepare',
    state: S.apiKey,
    key: KEY,
    body: {
      sponsor: EXAMPLE.sponsor,
      owner: EXAMPLE.owner,
      didUri: EXAMPLE.holderDid,
      sourcePublicKey: EXAMPLE.sponsor,
    },
    inject: { sponsor: 'wallet', sourcePublicKey: 'wallet' },
    outcome: 'prepared',
  }),
  prepare('/contracts/sponsored-vault/create', {
    description: "a sponsored deployment naming a sponsor other than the key's wallet",
    state: S.apiKey,
    key: KEY,
    body: {
      sponsor: EXAMPLE.sponsor,
      owner: EXAMPLE.owner,
      didUri: EXAMPLE.holderDid,
      sourcePublicKey: EXAMPLE.sponsor,
    },
    outcome: { status: 403, code: 'forbidden' },
  }),

  // credentials
  prepare('/contracts/vc/issue', {
    description: 'an issue to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: ISSUER_KEY,
    body: issueBody('vc-2'),
    inject: issueInject,
    outcome: 'prepared',
  }),
  submit('/contracts/vc/issue', {
    description: 'a signed issue',
    state: S.signedIssue,
    params: { vcId: 'vc-2' },
    key: ISSUER_KEY,
    headers: { 'Idempotency-Key': 'issue-vc-2-attempt-1' },
    outcome: 'submitted',
  }),
  prepare('/contracts/vc/issue', {
    description: 'an issue of a vcId the vault already holds',
    state: S.vaultWithCredential,
    params: vcOne,
    key: ISSUER_KEY,
    body: issueBody('vc-1'),
    inject: issueInject,
    outcome: { status: 409, code: 'vc_already_exists' },
  }),
  prepare('/contracts/vc/issue', {
    description: 'an issue by an issuer the vault denies',
    state: S.deniedIssuer,
    params: vcOne,
    key: ISSUER_KEY,
    body: issueBody('vc-2'),
    inject: issueInject,
    outcome: { status: 403, code: 'issuer_denied' },
  }),
  prepare('/contracts/vc/issue', {
    description: 'an issue into an owner without a vault',
    state: S.vaultWithCredential,
    params: vcOne,
    key: ISSUER_KEY,
    body: issueBody('vc-2'),
    inject: { ...issueInject, owner: 'stranger' },
    outcome: { status: 404, code: 'vault_not_found' },
  }),
  prepare('/contracts/vc/issue', {
    description: 'an issue under a DID another account controls',
    state: S.vaultWithCredential,
    params: vcOne,
    key: ISSUER_KEY,
    body: { ...issueBody('vc-2'), issuerDid: EXAMPLE.strangerDid },
    inject: { ...issueInject, issuerDid: 'strangerDid' },
    outcome: { status: 400, code: 'issuerDid_controller_mismatch' },
  }),
  submit('/contracts/vc/issue', {
    description: 'a signed vault deployment sent to the issue route',
    state: S.signedVaultCreate,
    key: KEY,
    outcome: { status: 400, code: 'tx_operation_mismatch' },
  }),
  prepare('/contracts/vc/batch-issue', {
    description: 'a batch issue to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: ISSUER_KEY,
    body: {
      owner: EXAMPLE.owner,
      issuer: EXAMPLE.issuer,
      issuerDid: EXAMPLE.issuerDid,
      sourcePublicKey: EXAMPLE.issuer,
      vcs: [
        { vcId: 'vc-3', vcData: VC_DATA },
        { vcId: 'vc-4', vcData: VC_DATA },
      ],
    },
    inject: issueInject,
    outcome: 'prepared',
  }),
  prepare('/contracts/vc/batch-issue', {
    description: 'a batch of six credentials',
    state: S.apiKey,
    key: KEY,
    body: {
      owner: EXAMPLE.owner,
      issuer: EXAMPLE.issuer,
      issuerDid: EXAMPLE.issuerDid,
      sourcePublicKey: EXAMPLE.issuer,
      vcs: [1, 2, 3, 4, 5, 6].map((n) => ({ vcId: `vc-${n}`, vcData: VC_DATA })),
    },
    outcome: { status: 400, code: 'batch_too_large' },
  }),
  prepare('/contracts/vc/revoke', {
    description: 'a revocation to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: { ...ownerOnly, vcId: 'vc-1', date: '2026-07-15T09:30:00.000Z' },
    inject: owner,
    outcome: 'prepared',
  }),
  submit('/contracts/vc/revoke', {
    description: 'a signed revocation',
    state: S.signedRevoke,
    params: vcOne,
    key: OWNER_KEY,
    outcome: 'submitted',
  }),
  prepare('/contracts/vc/revoke', {
    description: 'a revocation of a revoked credential',
    state: S.revokedCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: { ...ownerOnly, vcId: 'vc-1' },
    inject: owner,
    outcome: { status: 409, code: 'vc_already_revoked' },
  }),
  prepare('/contracts/vc/revoke', {
    description: 'a revocation of a credential the vault does not hold',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: { ...ownerOnly, vcId: 'vc-404' },
    inject: owner,
    outcome: { status: 404, code: 'vc_not_found' },
  }),

  // issuer access
  prepare('/contracts/vault/deny-issuer', {
    description: 'an issuer denial to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: access,
    inject: accessInject,
    outcome: 'prepared',
  }),
  prepare('/contracts/vault/deny-issuer', {
    description: 'an issuer denial in an owner without a vault',
    state: S.vaultWithCredential,
    params: vcOne,
    key: STRANGER_KEY,
    body: access,
    inject: { owner: 'stranger', sourcePublicKey: 'stranger', issuer: 'issuer' },
    outcome: { status: 404, code: 'vault_not_found' },
  }),
  prepare('/contracts/vault/revoke-issuer', {
    description: 'an issuer denial through the deprecated alias',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: access,
    inject: accessInject,
    outcome: 'prepared',
  }),
  prepare('/contracts/vault/allow-issuer', {
    description: 'an issuer allowance to prepare',
    state: S.deniedIssuer,
    params: vcOne,
    key: OWNER_KEY,
    body: access,
    inject: accessInject,
    outcome: 'prepared',
  }),
  prepare('/contracts/vault/authorize-issuer', {
    description: 'an issuer allowance through the deprecated alias',
    state: S.deniedIssuer,
    params: vcOne,
    key: OWNER_KEY,
    body: access,
    inject: accessInject,
    outcome: 'prepared',
  }),

  // vault administration
  prepare('/contracts/vault/set-vault-did', {
    description: 'a DID URI change to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: { ...ownerOnly, didUri: EXAMPLE.holderDid },
    inject: owner,
    outcome: 'prepared',
  }),
  prepare('/contracts/vault/set-vault-did', {
    description: 'a DID URI change in a revoked vault',
    state: S.revokedVault,
    params: vcOne,
    key: OWNER_KEY,
    body: { ...ownerOnly, didUri: EXAMPLE.holderDid },
    inject: owner,
    outcome: { status: 409, code: 'vault_revoked' },
  }),
  prepare('/contracts/vault/push', {
    description: 'a move from the salted vault to the canonical one',
    state: S.saltedVault,
    key: OWNER_KEY,
    body: {
      fromOwner: EXAMPLE.owner,
      toOwner: EXAMPLE.owner,
      vcId: 'vc-2',
      userSalt: EXAMPLE.userSalt,
      sourcePublicKey: EXAMPLE.owner,
    },
    inject: { fromOwner: 'owner', toOwner: 'owner', sourcePublicKey: 'owner', userSalt: 'userSalt' },
    outcome: 'prepared',
  }),
  prepare('/contracts/vault/push', {
    description: 'a move out of a vault of another wallet',
    state: S.saltedVault,
    key: STRANGER_KEY,
    body: {
      fromOwner: EXAMPLE.owner,
      toOwner: EXAMPLE.owner,
      vcId: 'vc-2',
      userSalt: EXAMPLE.userSalt,
      sourcePublicKey: EXAMPLE.owner,
    },
    inject: { fromOwner: 'owner', toOwner: 'owner', sourcePublicKey: 'owner', userSalt: 'userSalt' },
    outcome: { status: 403, code: 'forbidden' },
  }),
  prepare('/contracts/vault/revoke-vault', {
    description: 'a vault revocation to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: ownerOnly,
    inject: owner,
    outcome: 'prepared',
  }),
  prepare('/contracts/vault/revoke-vault', {
    description: 'a revocation of a revoked vault',
    state: S.revokedVault,
    params: vcOne,
    key: OWNER_KEY,
    body: ownerOnly,
    inject: owner,
    outcome: { status: 409, code: 'vault_revoked' },
  }),
  prepare('/contracts/vault/set-new-owner', {
    description: 'a hand-over to a new owner to prepare',
    state: S.vaultWithCredential,
    params: vcOne,
    key: OWNER_KEY,
    body: { ...ownerOnly, new_owner: EXAMPLE.newOwner },
    inject: owner,
    outcome: 'prepared',
  }),
];

type UntypedPost = (
  path: string,
  init: { body: unknown; headers?: Record<string, string> },
) => ReturnType<VaultClient['POST']>;

function responseOf(outcome: Outcome): { status: number; body: unknown } {
  if (outcome === 'prepared') return { status: 200, body: PREPARED };
  if (outcome === 'submitted') return { status: 200, body: SUBMITTED };
  return { status: outcome.status, body: vaultError(outcome.code) };
}

const title = (c: WriteCase) => {
  const what =
    c.outcome === 'prepared' || c.outcome === 'submitted' ? c.outcome : `${c.outcome.status} ${c.outcome.code}`;
  return `POST ${c.path} (${'signedXdr' in c.body ? 'submit' : 'prepare'}) → ${what}: ${c.description}`;
};

describe('write routes: prepare and submit', () => {
  it.each(CASES.map((c) => [title(c), c] as const))('%s', (_title, c) => {
    const answer = responseOf(c.outcome);
    let interaction = pact.interaction();
    if (c.state) interaction = interaction.given(c.state, c.params);
    return interaction
      .uponReceiving(c.description)
      .withRequest('POST', c.path, (b) =>
        b
          .headers({ ...keyHeader(...c.key), ...c.headers })
          .jsonBody(c.inject ? withInjected(c.body, c.inject) : c.body),
      )
      .willRespondWith(answer.status, (b) => b.jsonBody(answer.body))
      .executeTest(async (mock) => {
        const post = pact.vault(mock.url, c.key[1]).POST as unknown as UntypedPost;
        const result = await post(c.path, { body: c.body, ...(c.headers ? { headers: c.headers } : {}) });
        if (c.outcome === 'prepared') {
          const prepared = unwrap(result);
          expect(prepared).toHaveProperty('xdr', expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/));
          expect(prepared).toHaveProperty('network', expect.any(String));
        } else if (c.outcome === 'submitted') {
          expect(unwrap(result)).toHaveProperty('tx_id', expect.stringMatching(/^[0-9a-f]{64}$/));
        } else {
          expectApiError(result, c.outcome.status, c.outcome.code);
        }
      });
  });
});
