// The hostile section's combined keyless case: a credential whose eddsa-rdfc-2022 proof makes the service
// canonicalize it, and whose BitstringStatusListEntry makes it read and verify a list credential that carries an
// eddsa-rdfc-2022 proof too. Body and list share the keyless RDF limit (src/vault-api/keyless-rdf.ts
// KEYLESS_RDF_BODY_LIMIT_BYTES; src/vault-api/verification-bitstring.ts gives the list what the body left). The
// cost grows faster than the size, so the worst split is the smallest body and a list filling the rest with
// distinct values of one term, the costliest shape per byte. A local host serves the list: the vault API that
// measures it is a second one with `--web-fetch true` and this host as its test host (plain HTTP on loopback, for
// tests only).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { base64urlnopad } from '@scure/base';
import { bitstringEntry, didKey, issueWith } from '../../test-support/digitalbazaar.ts';
import { largest, TERMS, type RdfcHostileCase } from './hostile-rdfc.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const INDEX = 94_567;
const LIST_PATH = '/lists/hostile';

export const STATUS_CASE_NAME =
  'eddsa-rdfc-2022 credential whose BitstringStatusListEntry names an eddsa-rdfc-2022 list filling the limit with it';

export interface StatusListCase {
  case: RdfcHostileCase;
  /** `host:port` of the list's host, for `--web-fetch-test-hosts`. */
  host: string;
  /** Bytes of the list credential as compact JSON. */
  listBytes: number;
  close(): Promise<void>;
}

/** A list of 131,072 bits, none set, as Bitstring Status List §3.1 encodes it: GZIP, then multibase base64url. */
const clearList = (): string => `u${base64urlnopad.encode(gzipSync(Buffer.alloc(131_072 / 8)))}`;

/** The case's body and the host that serves its list; `close` stops the host. */
export async function rdfcStatusListCase(limit: number, holder: string): Promise<StatusListCase> {
  const served = new Map<string, string>();
  const server = createServer((req, res) => {
    const list = served.get(req.url ?? '');
    res.statusCode = list === undefined ? 404 : 200;
    res.setHeader('content-type', 'application/vc+ld+json');
    res.end(list);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    const url = `http://${host}${LIST_PATH}`;
    const issuer = await didKey('Ed25519');
    const values = (n: number) => Array.from({ length: n }, (_, i) => i.toString(36));
    const list = (n: number) =>
      issueWith('eddsa-rdfc-2022', issuer, {
        '@context': [V2, TERMS],
        id: url,
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        credentialSubject: {
          id: `${url}#list`,
          type: 'BitstringStatusList',
          statusPurpose: 'revocation',
          encodedList: clearList(),
          claim: values(n),
        },
      });
    const credential = async () => {
      const vc = await issueWith('eddsa-rdfc-2022', issuer, {
        '@context': [V2, TERMS],
        type: ['VerifiableCredential'],
        credentialSubject: { id: holder },
        credentialStatus: bitstringEntry(url, INDEX),
      });
      return JSON.stringify({ verifiableCredential: vc });
    };
    const body = await credential();
    // The service counts the body as compact JSON, as JSON.stringify writes it.
    const left = limit - Buffer.byteLength(body);
    const listText = await largest(left, async (n) => JSON.stringify(await list(n)), 4_000);
    served.set(LIST_PATH, listText);
    const listBytes = Buffer.byteLength(listText);
    return { case: { name: STATUS_CASE_NAME, body, expect: { verified: true } }, host, listBytes, close };
  } catch (e) {
    await close();
    throw e;
  }
}
