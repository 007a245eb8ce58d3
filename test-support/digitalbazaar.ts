// digitalbazaar's maintained signing libraries, as the W3C suites' generators use them (vc-di-eddsa-test-suite and
// vc-di-ecdsa-test-suite tests/vc-generator): keys, whole credentials issued by @digitalbazaar/vc, and proofs made
// step by step from the cryptosuites' own canonicalization (for the generators' variants: a proof option left
// out or changed, another canonicalization, another digest). Never this repository's signing code.
import { createHash } from 'node:crypto';
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import { createSignCryptosuite as ecdsaJcs2019 } from '@digitalbazaar/ecdsa-jcs-2019-cryptosuite';
import {
  createSignCryptosuite as eddsaJcs2022,
  createVerifyCryptosuite as eddsaJcs2022Verify,
} from '@digitalbazaar/eddsa-jcs-2022-cryptosuite';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { base58 } from '@scure/base';
import serialize from 'canonicalize';
import { staticDocumentLoader } from '../src/did/json-ld.ts';

type Json = Record<string, unknown>;
export type SuiteName =
  | 'eddsa-rdfc-2022'
  | 'eddsa-jcs-2022'
  | 'ecdsa-rdfc-2019'
  | 'ecdsa-jcs-2019'
  | 'Ed25519Signature2020';
export type Curve = 'Ed25519' | 'P-256' | 'P-384';

export interface DidKey {
  did: string;
  vm: string;
  curve: Curve;
  key: { signer(): { sign(o: { data: Uint8Array }): Promise<Uint8Array>; algorithm: string } };
  document: Json;
}

/** A fresh key pair of the curve and its did:key, made by the Multikey libraries. */
export async function didKey(curve: Curve): Promise<DidKey> {
  const key = curve === 'Ed25519' ? await Ed25519Multikey.generate() : await EcdsaMultikey.generate({ curve });
  const did = `did:key:${key.publicKeyMultibase}`;
  key.id = `${did}#${key.publicKeyMultibase}`;
  key.controller = did;
  const method = await key.export({ publicKey: true, includeContext: true });
  return { did, vm: key.id, curve, key, document: method };
}

/** A fresh key pair of the curve as the `#key-1` of a DID hosted elsewhere (did:web). */
export async function hostedKey(did: string, curve: Curve = 'Ed25519'): Promise<DidKey> {
  const key = curve === 'Ed25519' ? await Ed25519Multikey.generate() : await EcdsaMultikey.generate({ curve });
  key.id = `${did}#key-1`;
  key.controller = did;
  const method = await key.export({ publicKey: true, includeContext: true });
  return { did, vm: key.id, curve, key, document: method };
}

/** A loader over the product's bundled contexts, the given ones, and the key's verification method. */
export function loaderFor(issuer: Pick<DidKey, 'did' | 'vm' | 'document'>, contexts?: ReadonlyMap<string, unknown>) {
  return staticDocumentLoader(
    { ...(contexts ? { contexts } : {}) },
    new Map<string, unknown>([
      [issuer.vm, issuer.document],
      [
        issuer.did,
        {
          '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
          id: issuer.did,
          verificationMethod: [issuer.document],
          assertionMethod: [issuer.vm],
          authentication: [issuer.vm],
        },
      ],
    ]),
  );
}

/** The did:key of an Ed25519 Multikey made elsewhere (this repository's own keys), for loaderFor. */
export function didKeyOf(publicKeyMultibase: string): Pick<DidKey, 'did' | 'vm' | 'document'> {
  const did = `did:key:${publicKeyMultibase}`;
  const vm = `${did}#${publicKeyMultibase}`;
  const document = {
    '@context': 'https://w3id.org/security/multikey/v1',
    id: vm,
    type: 'Multikey',
    controller: did,
    publicKeyMultibase,
  };
  return { did, vm, document };
}

/** @digitalbazaar/vc `verifyCredential` of an eddsa-jcs-2022 credential by a did:key issuer: the peer's answer. */
export async function digitalbazaarVerifies(
  credential: Json,
  issuer: Pick<DidKey, 'did' | 'vm' | 'document'>,
): Promise<boolean> {
  const result = await vc.verifyCredential({
    credential,
    suite: new DataIntegrityProof({ cryptosuite: eddsaJcs2022Verify() }),
    documentLoader: loaderFor(issuer),
  });
  return result.verified;
}

function suiteFor(name: SuiteName, issuer: DidKey) {
  const signer = issuer.key.signer();
  switch (name) {
    case 'eddsa-rdfc-2022':
      return new DataIntegrityProof({ signer, cryptosuite: eddsaRdfc2022 });
    case 'ecdsa-rdfc-2019':
      return new DataIntegrityProof({ signer, cryptosuite: ecdsaRdfc2019 });
    case 'ecdsa-jcs-2019':
      return new DataIntegrityProof({ signer, cryptosuite: ecdsaJcs2019() });
    case 'eddsa-jcs-2022':
      return new DataIntegrityProof({ signer, cryptosuite: eddsaJcs2022() });
    case 'Ed25519Signature2020':
      return new Ed25519Signature2020({ signer });
  }
}

/** @digitalbazaar/vc `issue`: the whole credential as digitalbazaar's issuers make it, issued by `issuer`. */
export async function issueWith(
  name: SuiteName,
  issuer: DidKey,
  credential: Json,
  contexts?: ReadonlyMap<string, unknown>,
): Promise<Json> {
  // An issuer object keeps its other members (a name, a description) and gets the key's DID as its id.
  const named = credential['issuer'];
  const issuerMember =
    typeof named === 'object' && named !== null && !Array.isArray(named) ? { ...named, id: issuer.did } : issuer.did;
  return vc.issue({
    credential: structuredClone({ ...credential, issuer: issuerMember }),
    suite: suiteFor(name, issuer),
    documentLoader: loaderFor(issuer, contexts),
  });
}

/** @digitalbazaar/vc `signPresentation`, for the holder's authentication key. */
export async function signPresentationWith(
  name: SuiteName,
  holder: DidKey,
  presentation: Json,
  challenge: string,
): Promise<Json> {
  return vc.signPresentation({
    presentation: structuredClone(presentation),
    suite: suiteFor(name, holder),
    challenge,
    documentLoader: loaderFor(holder),
  });
}

export interface RawProofOptions {
  /** Replaces the cryptosuite's canonicalization of the document (the generators' canonizeJcs, canonizeUnknown). */
  canonize?: (document: Json) => Promise<string>;
  /** Replaces the hash (the generators' digestSha512). */
  digest?: 'sha512';
}

/**
 * A proof made step by step (Data Integrity §4.2 with the suite's transformation and hashing): the proof
 * configuration as given (undefined members left out), hashed with the document, signed by the key's signer.
 */
export async function rawProof(
  name: 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019' | 'ecdsa-jcs-2019',
  issuer: DidKey,
  document: Json,
  config: Json,
  options: RawProofOptions = {},
): Promise<Json> {
  const jcs = name === 'ecdsa-jcs-2019';
  const proofConfig = Object.fromEntries(
    Object.entries({ ...config, ...(jcs ? { '@context': document['@context'] } : {}) }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const loader = loaderFor(issuer);
  // Safe mode off on the signer's side: the generators sign what a verifier must refuse (an unknown proof type).
  const canon = async (d: Json) =>
    jcs ? serialize(d)! : eddsaRdfc2022.canonize(d, { documentLoader: loader, safe: false });
  const configText = await canon(jcs ? proofConfig : { '@context': document['@context'], ...proofConfig });
  const documentText = await (options.canonize ?? canon)(document);
  const algorithm = options.digest ?? (issuer.curve === 'P-384' ? 'sha384' : 'sha256');
  const hash = (t: string) => createHash(algorithm).update(t, 'utf8').digest();
  const data = new Uint8Array(Buffer.concat([hash(configText), hash(documentText)]));
  const signature = await issuer.key.signer().sign({ data });
  return { ...proofConfig, proofValue: `z${base58.encode(signature)}` };
}

/** A `BitstringStatusListEntry` (Bitstring Status List §2.1) at `index` of the list credential at `listUrl`. */
export const bitstringEntry = (listUrl: string, index: number, statusPurpose = 'revocation') => ({
  id: `${listUrl}#${index}`,
  type: 'BitstringStatusListEntry',
  statusPurpose,
  statusListIndex: String(index),
  statusListCredential: listUrl,
});
