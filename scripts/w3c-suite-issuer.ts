// A stand-in issuer for scripts/w3c-suites.sh, never part of the product: the W3C suites reach most of their verifier
// tests only through an implementation that also issues (vc-data-model-2.0-test-suite filters implementations by
// their issuers; the Data Integrity suites' interop tests verify what an issuer made). This product issues only
// with its own on-chain keys, so the suites' issuer side is played here by digitalbazaar's own libraries
// (test-support/digitalbazaar.ts, @digitalbazaar/vc `issue`), with a fresh did:key per cryptosuite and curve. The
// suites' tests of this issuer are not tests of the product: docs/testing.md lists them as exceptions.
//
//   node scripts/w3c-suite-issuer.ts PORT CONTEXTS_DIR
//   POST /issuers/{cryptosuite}/{Ed25519|P-256|P-384}/credentials/issue  {credential, options} → 201 {verifiableCredential}
//   POST /issuers/{cryptosuite}/{curve}/bare/credentials/issue → 201 with the credential itself, as
//        vc-data-model-2.0-test-suite reads an issuer's answer (tests/TestEndpoints.js issue)
import { createServer } from 'node:http';
import { readContextsFolder } from '../src/did/json-ld-folder.ts';
import { didKey, issueWith, type Curve, type DidKey, type SuiteName } from '../test-support/digitalbazaar.ts';

const [port = '4100', contextsDir] = process.argv.slice(2);
const contexts = contextsDir ? await readContextsFolder(contextsDir) : new Map<string, unknown>();
const SUITES: readonly SuiteName[] = ['eddsa-rdfc-2022', 'eddsa-jcs-2022', 'ecdsa-rdfc-2019', 'ecdsa-jcs-2019'];
const keys = new Map<string, DidKey>();

async function keyFor(suite: SuiteName, curve: Curve): Promise<DidKey> {
  const name = `${suite}/${curve}`;
  let key = keys.get(name);
  if (!key) keys.set(name, (key = await didKey(curve)));
  return key;
}

const server = createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const route = /^\/issuers\/([a-z0-9-]+)\/(Ed25519|P-256|P-384)\/(bare\/)?credentials\/issue$/.exec(req.url ?? '');
  const suite = SUITES.find((s) => s === route?.[1]);
  if (req.method !== 'POST' || !route || !suite) return answer(404, { message: 'not found' });
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (text += chunk));
  req.on('end', () => {
    void (async () => {
      try {
        const { credential } = JSON.parse(text) as { credential: Record<string, unknown> };
        const key = await keyFor(suite, route[2] as Curve);
        const issued = await issueWith(suite, key, credential, contexts);
        return answer(201, route[3] ? issued : { verifiableCredential: issued });
      } catch (e) {
        return answer(400, { message: (e as Error).message });
      }
    })();
  });
});
server.listen(Number(port), '127.0.0.1', () => console.log(`w3c suite issuer on http://127.0.0.1:${port}`));
