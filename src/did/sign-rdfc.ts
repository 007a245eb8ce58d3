// Creating `eddsa-rdfc-2022` proofs (W3C "Data Integrity EdDSA Cryptosuites v1.0" §3.2.1) with digitalbazaar's
// maintained implementation (jsonld-signatures, @digitalbazaar/data-integrity, @digitalbazaar/eddsa-rdfc-2022-
// cryptosuite): RDF Dataset Canonicalization is never hand-written here. The key stays where it is: the library
// gets a signer that signs the bytes it is given, as `signCredential`'s own signers do. Contexts come from the
// static loader (json-ld.ts), so signing never reaches a network; a term no context defines fails (safe mode).
import jsigs from 'jsonld-signatures';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { DataIntegrityError, type Signer } from './eddsa-jcs-2022.ts';
import type { DataIntegrityProof as Proof } from './data-integrity.ts';
import { staticDocumentLoader, type ContextSource } from './json-ld.ts';

export const EDDSA_RDFC_2022 = 'eddsa-rdfc-2022';

export interface RdfcProofOptions {
  verificationMethod: string;
  proofPurpose: 'assertionMethod' | 'authentication';
  /** A dateTimeStamp (already checked by the caller). */
  created?: string;
  challenge?: string;
  domain?: string;
  contexts?: ContextSource;
}

/** The document with its `eddsa-rdfc-2022` proof added (Data Integrity §4.1 Add Proof). */
export async function addRdfcProof(
  document: Record<string, unknown>,
  options: RdfcProofOptions,
  sign: Signer,
): Promise<Record<string, unknown> & { proof: Proof | Proof[] }> {
  const signer = {
    id: options.verificationMethod,
    algorithm: 'Ed25519',
    sign: async ({ data }: { data: Uint8Array }) => sign(data),
  };
  const suite = new DataIntegrityProof({
    signer,
    cryptosuite: eddsaRdfc2022,
    ...(options.created ? { date: options.created } : {}),
  });
  const purpose =
    options.proofPurpose === 'authentication'
      ? new jsigs.purposes.AuthenticationProofPurpose({
          challenge: options.challenge,
          ...(options.domain !== undefined ? { domain: options.domain } : {}),
        })
      : new jsigs.purposes.AssertionProofPurpose();
  try {
    const signed = await jsigs.sign(structuredClone(document), {
      suite,
      purpose,
      documentLoader: staticDocumentLoader(options.contexts ?? {}),
    });
    return signed as Record<string, unknown> & { proof: Proof | Proof[] };
  } catch (e) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', `${EDDSA_RDFC_2022}: ${(e as Error).message}`);
  }
}
