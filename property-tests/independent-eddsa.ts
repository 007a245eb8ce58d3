// An eddsa-jcs-2022 verifier written apart from src/did, for the properties to compare against: the
// `canonicalize` package (RFC 8785), node:crypto (SHA-256, Ed25519) and base58 multibase, following W3C "Data
// Integrity EdDSA Cryptosuites v1.0" §3.3.2 and "Verifiable Credential Data Integrity 1.0" §4.4/§4.5 for
// did:key verification methods only. It answers true or false; it is deliberately small, not complete.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { base58 } from '@scure/base';
import serialize from 'canonicalize';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const DATE_TIME_STAMP = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The Ed25519 public key of a `did:key:z6Mk…#z6Mk…` verification method, or undefined. */
function didKeyPublicKey(vm: string, controller: string): Buffer | undefined {
  const [did, fragment] = vm.split('#');
  if (did !== controller || !did?.startsWith('did:key:z') || fragment !== did.slice('did:key:'.length))
    return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(fragment.slice(1));
  } catch {
    return undefined;
  }
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return undefined;
  return Buffer.from(bytes.subarray(2));
}

/**
 * Whether every proof of `doc` (one, or a set without chains) verifies, made by `controller`'s did:key, for
 * `purpose`, answering `challenge` when given.
 */
export function independentlyVerified(
  doc: unknown,
  o: { controller: string; purpose: string; challenge?: string; now: number },
): boolean {
  if (!isObject(doc)) return false;
  const { proof, ...unsecured } = doc;
  const proofs = Array.isArray(proof) ? proof : proof === undefined ? [] : [proof];
  if (proofs.length === 0 || proofs.length > 8) return false;
  return proofs.every((p) => {
    if (!isObject(p) || p['previousProof'] !== undefined) return false;
    if (p['type'] !== 'DataIntegrityProof' || p['cryptosuite'] !== 'eddsa-jcs-2022' || p['proofPurpose'] !== o.purpose)
      return false;
    if (o.challenge !== undefined && p['challenge'] !== o.challenge) return false;
    for (const t of ['created', 'expires']) {
      if (
        p[t] !== undefined &&
        (typeof p[t] !== 'string' || !DATE_TIME_STAMP.test(p[t]) || Number.isNaN(Date.parse(p[t])))
      )
        return false;
    }
    if (typeof p['expires'] === 'string' && Date.parse(p['expires']) < o.now) return false;
    if (
      typeof p['verificationMethod'] !== 'string' ||
      typeof p['proofValue'] !== 'string' ||
      !p['proofValue'].startsWith('z')
    )
      return false;
    const key = didKeyPublicKey(p['verificationMethod'], o.controller);
    if (!key) return false;
    const { proofValue, ...config } = p;
    const document: Json = { ...unsecured };
    if (config['@context'] !== undefined) {
      const ctx = Array.isArray(unsecured['@context']) ? unsecured['@context'] : [unsecured['@context']];
      const pre = Array.isArray(config['@context']) ? config['@context'] : [config['@context']];
      if (pre.length > ctx.length || pre.some((c, i) => serialize(c) !== serialize(ctx[i]))) return false;
      document['@context'] = config['@context'];
    }
    let signature: Uint8Array;
    let data: Buffer;
    try {
      signature = base58.decode(String(proofValue).slice(1));
      data = Buffer.concat([sha256(serialize(config)!), sha256(serialize(document)!)]);
    } catch {
      return false;
    }
    if (signature.length !== 64) return false;
    const publicKey = createPublicKey({ key: Buffer.concat([SPKI_ED25519, key]), format: 'der', type: 'spki' });
    return verify(null, data, publicKey, signature);
  });
}
