// Public surface of the did:ledger library, shared by the resolver and the Vault API's issuer-DID checks.
export * from './types.ts';
export { bytesToDidId, decodeDidParam, didIdToBytes, generateDid, parseDid } from './did.ts';
export { decodeMultikey, encodeMultikey } from './multikey.ts';
export { canonicalize, canonicalizeToBytes } from './jcs.ts';
export {
  DID_CONTEXT,
  DID_RESOLUTION,
  DID_RESOLUTION_CONTEXT,
  DID_URL_DEREFERENCING,
  LD_JSON_DID_RESOLUTION,
  DID_LD_JSON,
  buildResolutionResult,
  negotiateRepresentation,
  resolutionError,
  xmlDateTime,
  type Negotiated,
} from './document.ts';
export { validateRecord, type RecordViolation } from './record-rules.ts';
export {
  Ed25519KeyCache,
  MemoryNonceStore,
  createChallenge,
  verifyProof,
  type NonceStore,
  type ProofChallenge,
} from './proof.ts';
export { dereferenceFragment } from './dereference.ts';
export { ed25519KeyPair, isDateTimeStamp, type DataIntegrityErrorType, type Signer } from './eddsa-jcs-2022.ts';
export {
  addProof,
  signCredential,
  signPresentation,
  verifyDataIntegrity,
  type DataIntegrityProof,
  type ProofProblem,
  type ProofVerification,
  type LedgerVaultStatus,
  type SignCredentialOptions,
  type SignPresentationOptions,
  type SigningCryptosuite,
  type VerifyDataIntegrityResult,
} from './data-integrity.ts';
export { resolveFromRegistry } from './resolve.ts';
export { LEDGER_VAULT_CONTEXT, type ContextSource } from './json-ld.ts';
export { DID_KEY_PREFIX, resolveDidKey } from './did-key.ts';
export { DID_WEB_PREFIX, resolveDidWeb } from './did-web.ts';
