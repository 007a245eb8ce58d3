// The package's typed clients (design.md: "src/client exports typed clients for both APIs"): what the
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
  type WriteOptions,
  type WriteResult,
  type ObtainKeyOptions,
  type Signer,
  type FetchLike,
} from './vault.ts';
export {
  createResolverClient,
  resolveDid,
  registerDid,
  mutateDid,
  type ResolverClient,
  type ResolverClientOptions,
  type ResolverPaths,
  type ResolverSchemas,
  type Resolution,
  type ResolutionResult,
  type DidMutations,
  type DidWriteResult,
} from './resolver.ts';
export { authEntries, authorizeEntries, type AuthEntryInfo, type AuthEntrySigner, type AuthorizeOptions, type CredentialType } from './auth.ts';
export { ApiError, UNEXPECTED_RESPONSE, apiErrorFrom, isApiError, unwrap, type FetchResult, type ResolverErrorCode } from './errors.ts';
// What a client needs to name a new DID and its keys before registering them.
export { generateDid, encodeMultikey } from '../did/index.ts';
