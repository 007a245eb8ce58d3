// The worst request bodies within each service's size limit (issue 12, item 1): one huge collection,
// filled right up to the limit. They froze the vault API for 33-47 s and answered up to 32 MB before the
// pre-check (src/openapi/collection-bounds.ts); now each is a 400 of a few KB. Shared by the HTTP test
// (oversized-bodies.test.ts: status, code and size) and the benchmark (bench/sections/oversized.ts: latency).
import { RESOLVER_BODY_LIMIT, VAULT_BODY_LIMIT } from './mutations.ts';

/** The most an error body may take, whatever the request ("a few KB"). */
export const ERROR_BODY_MAX_BYTES = 4096;

export interface OversizedCase {
  name: string;
  service: 'vault' | 'resolver';
  path: string;
  /** Needs a vault API key (X-SVC-Key). */
  keyed: boolean;
  body: string;
  want: { status: number; code: string };
}

const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const KEY = 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';

/** `head` + as many `item(i)` as fit (comma-separated) + `tail`, within `limit` bytes. */
function fill(head: string, item: (i: number) => string, tail: string, limit: number): string {
  const parts: string[] = [];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let i = 0; ; i++) {
    const p = item(i);
    const add = Buffer.byteLength(p) + (i > 0 ? 1 : 0);
    if (size + add > limit) break;
    parts.push(p);
    size += add;
  }
  return head + parts.join(',') + tail;
}

const record = (inner: string) => `{"did":"${DID}","sourcePublicKey":"${OWNER}","record":{"controller":"${OWNER}",${inner}}}`;

export function oversizedCases(): OversizedCase[] {
  const vault = VAULT_BODY_LIMIT;
  const resolver = RESOLVER_BODY_LIMIT;
  return [
    {
      name: 'vault POST /auth/keys: scopes of objects (no key)',
      service: 'vault', path: '/auth/keys', keyed: false,
      body: fill('{"transaction":"AAAA","scopes":[', (i) => `{"a":${i}}`, ']}', vault),
      want: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'vault POST /auth/keys: scopes of zeros (no key)',
      service: 'vault', path: '/auth/keys', keyed: false,
      body: fill('{"transaction":"AAAA","scopes":[', () => '0', ']}', vault),
      want: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'vault POST /auth/keys: unknown fields (no key)',
      service: 'vault', path: '/auth/keys', keyed: false,
      body: fill('{"transaction":"AAAA",', (i) => `"k${i}":0`, '}', vault),
      want: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'vault POST /contracts/vc/batch-issue: vcs of {}',
      service: 'vault', path: '/contracts/vc/batch-issue', keyed: true,
      body: fill('{"vcs":[', () => '{}', ']}', vault),
      want: { status: 400, code: 'batch_too_large' },
    },
    {
      name: 'resolver POST /v1/dids/stellar: authentication of keys',
      service: 'resolver', path: '/v1/dids/stellar', keyed: false,
      body: fill(record('"assertionMethod":[],"keyAgreement":[],"services":[],"authentication":[').slice(0, -2), () => `{"publicKeyMultibase":"${KEY}"}`, ']}}', resolver),
      want: { status: 400, code: 'key_count_invalid' },
    },
    {
      name: 'resolver POST /v1/dids/stellar: authentication of {}',
      service: 'resolver', path: '/v1/dids/stellar', keyed: false,
      body: fill(record('"assertionMethod":[],"keyAgreement":[],"services":[],"authentication":[').slice(0, -2), () => '{}', ']}}', resolver),
      want: { status: 400, code: 'key_count_invalid' },
    },
    {
      name: 'resolver POST /v1/dids/stellar: unknown fields of the record',
      service: 'resolver', path: '/v1/dids/stellar', keyed: false,
      body: fill(record(`"authentication":[{"publicKeyMultibase":"${KEY}"}],"assertionMethod":[],"keyAgreement":[],"services":[],`).slice(0, -2), (i) => `"k${i}":0`, '}}', resolver),
      want: { status: 400, code: 'invalid_request' },
    },
  ];
}
