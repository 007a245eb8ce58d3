// The package's typed clients (docs/architecture.md): what the
// consumer tests, the demo and the benchmarks use, as a user would.
export {
  createVaultClient,
  apiKeyMiddleware,
  prepareAndSubmit,
  obtainApiKey,
  type VaultClient,
  type VaultClientOptions,
  type VaultPaths,
  type VaultSchemas,
  type VaultWritePath,
  type PrepareBody,
  type PrepareAnswer,
  type WriteOptions,
  type WriteResult,
  type ObtainKeyOptions,
  type FetchLike,
} from './vault.ts';
export {
  verifyCredential,
  verifyPresentation,
  createChallenge,
  failures,
  type VerifyCredentialRequest,
  type VerifyCredentialResult,
  type VerifyPresentationRequest,
  type VerifyPresentationResult,
  type ProblemDetails,
} from './verify.ts';
export { signingPassphrase, transactionId, preparedOf, type PreparedShape, type SubmittedShape } from './shapes.ts';
export {
  toSigner,
  keypairSigner,
  browserWalletSigner,
  type Signer,
  type Wallet,
  type BrowserWallet,
} from './wallet.ts';
export {
  createResolverClient,
  resolveDid,
  dereferenceDidUrl,
  registerDid,
  mutateDid,
  type ResolverClient,
  type ResolverClientOptions,
  type ResolverPaths,
  type ResolverSchemas,
  type Resolution,
  type ResolutionResult,
  type Dereferenced,
  type DidMutations,
  type DidWriteResult,
} from './resolver.ts';
export {
  createRegistrar,
  didsOf,
  type Registrar,
  type RegistrarCallOptions,
  type RegistrarState,
  type ControlledDid,
  type DidsOf,
} from './registrar.ts';
export {
  authEntries,
  authorizeEntries,
  type AuthEntryInfo,
  type AuthEntrySigner,
  type AuthorizeOptions,
  type CredentialType,
} from './auth.ts';
export {
  ApiError,
  UNEXPECTED_RESPONSE,
  apiErrorFrom,
  isApiError,
  unwrap,
  type FetchResult,
  type ResolverErrorCode,
} from './errors.ts';
// What a client needs to name a new DID and its keys before registering them.
export { generateDid, encodeMultikey } from '../did/index.ts';
// What an issuer's wallet or backend needs to sign its credentials (Data Integrity, eddsa-jcs-2022 or
// eddsa-rdfc-2022), and a verifier to check a proof itself: the services never sign with an issuer's key.
export {
  signCredential,
  signPresentation,
  addProof,
  ed25519KeyPair,
  verifyDataIntegrity,
  type LedgerVaultStatus,
  type SignPresentationOptions,
  type SignCredentialOptions,
  type SigningCryptosuite,
  type Signer as ProofSigner,
  type DataIntegrityProof,
  type VerifyDataIntegrityResult,
} from '../did/index.ts';
