// Creating Data Integrity proofs with `eddsa-jcs-2022` (W3C "Data Integrity EdDSA Cryptosuites v1.0" §3.3.1,
// and Data Integrity §4.1/§4.2 for proof sets and chains): Ed25519 over proofConfigHash || documentHash,
// `proofValue` in multibase base58btc. Creating a proof needs the signer's key; the services never call it with
// an issuer's key, only issuers' wallets and backends do.
import type { Network } from '../domain.ts';
import { base58btcEncode } from './multikey.ts';
import {
  DATA_INTEGRITY_PROOF,
  DataIntegrityError,
  EDDSA_JCS_2022,
  ed25519KeyPair,
  hashData,
  isDateTimeStamp,
  proofConfiguration,
  transform,
  type Ed25519SecretKey,
  type Signer,
} from './eddsa-jcs-2022.ts';
import { parseDidUrl, type VerificationRelationship } from './dereference.ts';
import type { DataIntegrityProof } from './data-integrity.ts';
import type { ContextSource } from './json-ld.ts';
import { EDDSA_RDFC_2022, addRdfcProof, type RdfcProofOptions } from './sign-rdfc.ts';

/** What the signer chooses about the proof (Data Integrity §2.1); `type` and `cryptosuite` are fixed. */
export interface ProofOptions {
  /** A DID URL naming the signing key, e.g. `did:ledger:testnet:…#assert-1`. */
  verificationMethod: string;
  /** Default `assertionMethod`: what an issuer's credential proof is for. */
  proofPurpose?: VerificationRelationship;
  created?: Date | string;
  expires?: Date | string;
  id?: string;
  domain?: string | string[];
  challenge?: string;
  nonce?: string;
  /** The ids of the proofs already on the document that this proof endorses (a proof chain). */
  previousProof?: string | string[];
}

export type SigningKey = { secretKey: Ed25519SecretKey; signer?: never } | { signer: Signer; secretKey?: never };

/** §3.3.1: the proof of one unsecured document (which, in a chain, carries the endorsed proofs). */
export async function createProof(
  unsecuredDocument: Record<string, unknown>,
  options: ProofOptions,
  key: SigningKey,
): Promise<DataIntegrityProof> {
  const proof: Record<string, unknown> = {
    ...(options.id !== undefined ? { id: options.id } : {}),
    type: DATA_INTEGRITY_PROOF,
    cryptosuite: EDDSA_JCS_2022,
    ...(options.created !== undefined ? { created: dateTimeOf(options.created, 'created') } : {}),
    ...(options.expires !== undefined ? { expires: dateTimeOf(options.expires, 'expires') } : {}),
    verificationMethod: options.verificationMethod,
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
    ...(options.challenge !== undefined ? { challenge: options.challenge } : {}),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    ...(options.previousProof !== undefined ? { previousProof: options.previousProof } : {}),
  };
  if (
    parseDidUrl(options.verificationMethod)?.fragment === undefined &&
    !/^[a-z][a-z0-9+.-]*:/i.test(options.verificationMethod)
  ) {
    throw new DataIntegrityError(
      'PROOF_GENERATION_ERROR',
      'verificationMethod must be a URL (a DID URL with a fragment)',
    );
  }
  // Step 2: the proof carries the document's @context, so the verifier can check it was not swapped.
  if (unsecuredDocument['@context'] !== undefined) proof['@context'] = unsecuredDocument['@context'];
  const canonicalProofConfig = proofConfiguration(proof);
  const transformed = transform(unsecuredDocument, proof);
  const sign: Signer = key.signer ?? ed25519KeyPair(key.secretKey!).sign;
  const signature = await sign(hashData(transformed, canonicalProofConfig));
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'the signer must return a 64-byte Ed25519 signature');
  }
  return { ...(proof as unknown as DataIntegrityProof), proofValue: 'z' + base58btcEncode(signature) };
}

/**
 * Data Integrity §4.1 Add Proof and §4.2 proof sets and chains: the document with one more proof. A
 * document that already has proofs gets an array (a proof set); with `previousProof` the new proof signs
 * the document together with the proofs it names (a chain), which must be on the document.
 */
export async function addProof(
  document: Record<string, unknown>,
  options: ProofOptions,
  key: SigningKey,
): Promise<Record<string, unknown> & { proof: DataIntegrityProof | DataIntegrityProof[] }> {
  const { proof: existing, ...rest } = document;
  const allProofs = existing === undefined ? [] : Array.isArray(existing) ? [...existing] : [existing];
  const input: Record<string, unknown> = { ...rest };
  if (options.previousProof !== undefined) {
    const matching = matchingProofs(allProofs, options.previousProof);
    if (!matching.ok) throw new DataIntegrityError('PROOF_GENERATION_ERROR', matching.message);
    input['proof'] = matching.proofs;
  }
  const proof = await createProof(input, options, key);
  allProofs.push(proof);
  return { ...rest, proof: allProofs.length === 1 ? proof : (allProofs as DataIntegrityProof[]) };
}

/**
 * Where a credential held in a vault keeps its status: its LedgerVaultStatusEntry (vault-api.yaml), which a
 * verifier reads on the chain. `vaultContract` is the holder's vault (`vault_address` of
 * `GET /contracts/vault/{owner}`); `contextUrl`, when given, is the vault API's
 * `{base}/contexts/ledger-vault/v1`, added to the credential's `@context`.
 */
export interface LedgerVaultStatus {
  network: Network;
  vaultContract: string;
  vcId: string;
  contextUrl?: string;
}

export interface SignCredentialOptions extends Omit<ProofOptions, 'proofPurpose'> {
  credential: Record<string, unknown>;
  proofPurpose?: VerificationRelationship;
  secretKey?: Ed25519SecretKey;
  signer?: Signer;
  /** Adds the credential's LedgerVaultStatusEntry before signing. */
  ledgerVaultStatus?: LedgerVaultStatus;
  /** Default `eddsa-jcs-2022`; `eddsa-rdfc-2022` signs with digitalbazaar's implementation (sign-rdfc.ts). */
  cryptosuite?: SigningCryptosuite;
  /** For `eddsa-rdfc-2022`: JSON-LD contexts beside the bundled ones. */
  contexts?: ContextSource;
}

/** The cryptosuites this repository signs with. */
export type SigningCryptosuite = typeof EDDSA_JCS_2022 | typeof EDDSA_RDFC_2022;

/**
 * An issuer's proof on a credential: `eddsa-jcs-2022` (or `eddsa-rdfc-2022`), purpose `assertionMethod`, signed
 * with the key that `verificationMethod` names (one of the issuer DID's `#assert-N` keys). Pass the key itself or
 * a `signer` (a wallet, an HSM) that signs the bytes it is given.
 */
export async function signCredential({
  credential,
  secretKey,
  signer,
  ledgerVaultStatus,
  cryptosuite,
  contexts,
  ...options
}: SignCredentialOptions) {
  if ((secretKey === undefined) === (signer === undefined)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'pass exactly one of secretKey and signer');
  }
  const unsigned = ledgerVaultStatus ? withStatusEntry(credential, ledgerVaultStatus) : credential;
  if (cryptosuite === EDDSA_RDFC_2022) {
    return addRdfcProof(
      unsigned,
      {
        verificationMethod: options.verificationMethod,
        proofPurpose: 'assertionMethod',
        ...(options.created !== undefined ? { created: dateTimeOf(options.created, 'created') } : {}),
        ...(contexts ? { contexts } : {}),
      },
      signer ?? ed25519KeyPair(secretKey!).sign,
    );
  }
  return addProof(unsigned, options, signer ? { signer } : { secretKey: secretKey! });
}

function withStatusEntry(credential: Record<string, unknown>, s: LedgerVaultStatus): Record<string, unknown> {
  const entry = {
    type: 'LedgerVaultStatusEntry',
    statusPurpose: 'revocation',
    network: s.network,
    vaultContract: s.vaultContract,
    vcId: s.vcId,
  };
  const existing = credential['credentialStatus'];
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  if (list.some((e) => typeof e === 'object' && e !== null && (e as { type?: unknown }).type === entry.type)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'the credential already carries a LedgerVaultStatusEntry');
  }
  const context = credential['@context'];
  const contexts = Array.isArray(context) ? context : context === undefined ? [] : [context];
  return {
    ...credential,
    ...(s.contextUrl !== undefined && !contexts.includes(s.contextUrl)
      ? { '@context': [...contexts, s.contextUrl] }
      : {}),
    credentialStatus: list.length === 0 ? entry : [...list, entry],
  };
}

export interface SignPresentationOptions {
  /** The presentation: `holder` and `verifiableCredential`; `@context` and `type` are added when missing. */
  presentation: Record<string, unknown>;
  /** A key under the holder DID's `authentication` (`did:ledger:…#auth-1`, or a did:key's own key). */
  verificationMethod: string;
  /** The verifier's challenge (POST /challenges) and, when it asks for one, its domain. */
  challenge: string;
  domain?: string;
  created?: Date | string;
  secretKey?: Ed25519SecretKey;
  signer?: Signer;
  /** Default `eddsa-jcs-2022`. */
  cryptosuite?: SigningCryptosuite;
  contexts?: ContextSource;
}

/** A holder's proof on a presentation: `eddsa-jcs-2022` (or `eddsa-rdfc-2022`), purpose `authentication`. */
export async function signPresentation({
  presentation,
  secretKey,
  signer,
  challenge,
  domain,
  cryptosuite,
  contexts,
  ...options
}: SignPresentationOptions) {
  if ((secretKey === undefined) === (signer === undefined)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'pass exactly one of secretKey and signer');
  }
  const vp = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiablePresentation'],
    ...presentation,
  };
  const proof = {
    ...options,
    proofPurpose: 'authentication' as const,
    challenge,
    ...(domain !== undefined ? { domain } : {}),
  };
  if (cryptosuite === EDDSA_RDFC_2022) {
    const rdfc = { ...proof, ...(contexts ? { contexts } : {}) };
    if (options.created !== undefined) rdfc.created = dateTimeOf(options.created, 'created');
    return addRdfcProof(vp, rdfc as RdfcProofOptions, signer ?? ed25519KeyPair(secretKey!).sign);
  }
  return addProof(vp, proof, signer ? { signer } : { secretKey: secretKey! });
}

function dateTimeOf(value: Date | string, name: string): string {
  const text = value instanceof Date ? value.toISOString().replace(/\.000Z$/, 'Z') : value;
  if (!isDateTimeStamp(text))
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', `${name} must be an XML Schema dateTimeStamp`);
  return text;
}

function matchingProofs(
  all: unknown[],
  previous: unknown,
): { ok: true; proofs: unknown[] } | { ok: false; message: string } {
  const ids = typeof previous === 'string' ? [previous] : previous;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
    return { ok: false, message: 'previousProof must be a proof id or a non-empty list of proof ids' };
  }
  const proofs: unknown[] = [];
  for (const id of ids) {
    const found = all.find((p) => typeof p === 'object' && p !== null && (p as { id?: unknown }).id === id);
    if (!found) return { ok: false, message: `previousProof ${id} is not a proof of the document` };
    proofs.push(found);
  }
  return { ok: true, proofs };
}
