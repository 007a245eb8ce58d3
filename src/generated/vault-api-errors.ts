// The error codes of vault-api.yaml (components.x-error-codes), written by scripts/generate.mjs.
// Do not edit: change the spec and run npm run generate.

/** Every code the spec lists, with its status; `[i]` stands for an item's index. */
export const VAULT_ERROR_CODES = [
  { code: "invalid_request", status: 400 },
  { code: "invalid_json", status: 400 },
  { code: "invalid_body_encoding", status: 400 },
  { code: "batch_too_large", status: 400 },
  { code: "vcs[i].vcId_too_long", status: 400 },
  { code: "vcs[i].vcData_too_long", status: 400 },
  { code: "vcId_too_long", status: 400 },
  { code: "vcData_too_long", status: 400 },
  { code: "vc_proof_invalid", status: 400 },
  { code: "credentialStatus_mismatch", status: 400 },
  { code: "vcData_invalid", status: 400 },
  { code: "vcData_ciphertext_too_long", status: 400 },
  { code: "limit_too_large", status: 400 },
  { code: "issuerDid_invalid", status: 400 },
  { code: "issuerDid_network_mismatch", status: 400 },
  { code: "issuerDid_not_found", status: 400 },
  { code: "issuerDid_deactivated", status: 400 },
  { code: "issuerDid_controller_mismatch", status: 400 },
  { code: "vaultContract_mismatch", status: 400 },
  { code: "source_account_not_found", status: 400 },
  { code: "tx_invalid", status: 400 },
  { code: "tx_operation_mismatch", status: 400 },
  { code: "tx_failed", status: 400 },
  { code: "tx_expired", status: 400 },
  { code: "vault_already_deployed", status: 409 },
  { code: "trustline_missing", status: 400 },
  { code: "insufficient_balance", status: 400 },
  { code: "vc_already_revoked", status: 409 },
  { code: "push_owner_mismatch", status: 400 },
  { code: "source_not_a_vault", status: 400 },
  { code: "issuer_list_too_long", status: 400 },
  { code: "input_too_long", status: 400 },
  { code: "fee_invalid", status: 400 },
  { code: "expiresAt_in_past", status: 400 },
  { code: "challenge_invalid", status: 400 },
  { code: "missing_api_key", status: 401 },
  { code: "invalid_api_key", status: 401 },
  { code: "api_key_expired", status: 401 },
  { code: "forbidden", status: 403 },
  { code: "wallet_not_linked", status: 403 },
  { code: "insufficient_scope", status: 403 },
  { code: "admin_required", status: 403 },
  { code: "issuer_denied", status: 403 },
  { code: "origin_not_allowed", status: 403 },
  { code: "account_not_found", status: 403 },
  { code: "not_found", status: 404 },
  { code: "route_removed", status: 410 },
  { code: "method_not_allowed", status: 405 },
  { code: "vault_not_found", status: 404 },
  { code: "vc_not_found", status: 404 },
  { code: "state_archived", status: 409 },
  { code: "key_not_found", status: 404 },
  { code: "vc_already_exists", status: 409 },
  { code: "tx_stale", status: 409 },
  { code: "vault_revoked", status: 409 },
  { code: "idempotency_in_progress", status: 409 },
  { code: "key_exists", status: 409 },
  { code: "payload_too_large", status: 413 },
  { code: "unsupported_content_encoding", status: 415 },
  { code: "idempotency_key_reused", status: 422 },
  { code: "rate_limit_exceeded", status: 429 },
  { code: "write_rate_limit_exceeded", status: 429 },
  { code: "challenge_quota_exceeded", status: 429 },
  { code: "headers_too_large", status: 431 },
  { code: "internal_error", status: 500 },
  { code: "vc_decryption_failed", status: 500 },
  { code: "chain_unavailable", status: 502 },
  { code: "rate_limit_unavailable", status: 503 },
  { code: "store_unavailable", status: 503 },
  { code: "tx_timeout", status: 504 },
] as const;

/** A code of the spec's error envelope. */
export type VaultErrorCode =
  | "invalid_request"
  | "invalid_json"
  | "invalid_body_encoding"
  | "batch_too_large"
  | `vcs[${number}].vcId_too_long`
  | `vcs[${number}].vcData_too_long`
  | "vcId_too_long"
  | "vcData_too_long"
  | "vc_proof_invalid"
  | "credentialStatus_mismatch"
  | "vcData_invalid"
  | "vcData_ciphertext_too_long"
  | "limit_too_large"
  | "issuerDid_invalid"
  | "issuerDid_network_mismatch"
  | "issuerDid_not_found"
  | "issuerDid_deactivated"
  | "issuerDid_controller_mismatch"
  | "vaultContract_mismatch"
  | "source_account_not_found"
  | "tx_invalid"
  | "tx_operation_mismatch"
  | "tx_failed"
  | "tx_expired"
  | "vault_already_deployed"
  | "trustline_missing"
  | "insufficient_balance"
  | "vc_already_revoked"
  | "push_owner_mismatch"
  | "source_not_a_vault"
  | "issuer_list_too_long"
  | "input_too_long"
  | "fee_invalid"
  | "expiresAt_in_past"
  | "challenge_invalid"
  | "missing_api_key"
  | "invalid_api_key"
  | "api_key_expired"
  | "forbidden"
  | "wallet_not_linked"
  | "insufficient_scope"
  | "admin_required"
  | "issuer_denied"
  | "origin_not_allowed"
  | "account_not_found"
  | "not_found"
  | "route_removed"
  | "method_not_allowed"
  | "vault_not_found"
  | "vc_not_found"
  | "state_archived"
  | "key_not_found"
  | "vc_already_exists"
  | "tx_stale"
  | "vault_revoked"
  | "idempotency_in_progress"
  | "key_exists"
  | "payload_too_large"
  | "unsupported_content_encoding"
  | "idempotency_key_reused"
  | "rate_limit_exceeded"
  | "write_rate_limit_exceeded"
  | "challenge_quota_exceeded"
  | "headers_too_large"
  | "internal_error"
  | "vc_decryption_failed"
  | "chain_unavailable"
  | "rate_limit_unavailable"
  | "store_unavailable"
  | "tx_timeout";

/** The status the spec gives each code (the families of `[i]` codes under their listed name). */
export const VAULT_ERROR_STATUS: Readonly<Record<(typeof VAULT_ERROR_CODES)[number]['code'], number>> = Object.fromEntries(
  VAULT_ERROR_CODES.map((e) => [e.code, e.status]),
) as Record<(typeof VAULT_ERROR_CODES)[number]['code'], number>;

/**
 * Named constructors of the codes, each with its status: `vaultErrorsOf(make).vcNotFound(message)`. `make`
 * builds the service's error; a family's constructor (`[i]`) takes the item's index first.
 */
export function vaultErrorsOf<E, A extends unknown[] = []>(
  make: (status: number, code: VaultErrorCode, message: string, ...rest: A) => E,
) {
  return {
    /** 400 `invalid_request` */
    invalidRequest: (message: string, ...rest: A): E => make(400, "invalid_request", message, ...rest),
    /** 400 `invalid_json` */
    invalidJson: (message: string, ...rest: A): E => make(400, "invalid_json", message, ...rest),
    /** 400 `invalid_body_encoding` */
    invalidBodyEncoding: (message: string, ...rest: A): E => make(400, "invalid_body_encoding", message, ...rest),
    /** 400 `batch_too_large` */
    batchTooLarge: (message: string, ...rest: A): E => make(400, "batch_too_large", message, ...rest),
    /** 400 `vcs[i].vcId_too_long` */
    vcsVcIdTooLong: (i: number, message: string, ...rest: A): E => make(400, `vcs[${i}].vcId_too_long`, message, ...rest),
    /** 400 `vcs[i].vcData_too_long` */
    vcsVcDataTooLong: (i: number, message: string, ...rest: A): E => make(400, `vcs[${i}].vcData_too_long`, message, ...rest),
    /** 400 `vcId_too_long` */
    vcIdTooLong: (message: string, ...rest: A): E => make(400, "vcId_too_long", message, ...rest),
    /** 400 `vcData_too_long` */
    vcDataTooLong: (message: string, ...rest: A): E => make(400, "vcData_too_long", message, ...rest),
    /** 400 `vc_proof_invalid` */
    vcProofInvalid: (message: string, ...rest: A): E => make(400, "vc_proof_invalid", message, ...rest),
    /** 400 `credentialStatus_mismatch` */
    credentialStatusMismatch: (message: string, ...rest: A): E => make(400, "credentialStatus_mismatch", message, ...rest),
    /** 400 `vcData_invalid` */
    vcDataInvalid: (message: string, ...rest: A): E => make(400, "vcData_invalid", message, ...rest),
    /** 400 `vcData_ciphertext_too_long` */
    vcDataCiphertextTooLong: (message: string, ...rest: A): E => make(400, "vcData_ciphertext_too_long", message, ...rest),
    /** 400 `limit_too_large` */
    limitTooLarge: (message: string, ...rest: A): E => make(400, "limit_too_large", message, ...rest),
    /** 400 `issuerDid_invalid` */
    issuerDidInvalid: (message: string, ...rest: A): E => make(400, "issuerDid_invalid", message, ...rest),
    /** 400 `issuerDid_network_mismatch` */
    issuerDidNetworkMismatch: (message: string, ...rest: A): E => make(400, "issuerDid_network_mismatch", message, ...rest),
    /** 400 `issuerDid_not_found` */
    issuerDidNotFound: (message: string, ...rest: A): E => make(400, "issuerDid_not_found", message, ...rest),
    /** 400 `issuerDid_deactivated` */
    issuerDidDeactivated: (message: string, ...rest: A): E => make(400, "issuerDid_deactivated", message, ...rest),
    /** 400 `issuerDid_controller_mismatch` */
    issuerDidControllerMismatch: (message: string, ...rest: A): E => make(400, "issuerDid_controller_mismatch", message, ...rest),
    /** 400 `vaultContract_mismatch` */
    vaultContractMismatch: (message: string, ...rest: A): E => make(400, "vaultContract_mismatch", message, ...rest),
    /** 400 `source_account_not_found` */
    sourceAccountNotFound: (message: string, ...rest: A): E => make(400, "source_account_not_found", message, ...rest),
    /** 400 `tx_invalid` */
    txInvalid: (message: string, ...rest: A): E => make(400, "tx_invalid", message, ...rest),
    /** 400 `tx_operation_mismatch` */
    txOperationMismatch: (message: string, ...rest: A): E => make(400, "tx_operation_mismatch", message, ...rest),
    /** 400 `tx_failed` */
    txFailed: (message: string, ...rest: A): E => make(400, "tx_failed", message, ...rest),
    /** 400 `tx_expired` */
    txExpired: (message: string, ...rest: A): E => make(400, "tx_expired", message, ...rest),
    /** 409 `vault_already_deployed` */
    vaultAlreadyDeployed: (message: string, ...rest: A): E => make(409, "vault_already_deployed", message, ...rest),
    /** 400 `trustline_missing` */
    trustlineMissing: (message: string, ...rest: A): E => make(400, "trustline_missing", message, ...rest),
    /** 400 `insufficient_balance` */
    insufficientBalance: (message: string, ...rest: A): E => make(400, "insufficient_balance", message, ...rest),
    /** 409 `vc_already_revoked` */
    vcAlreadyRevoked: (message: string, ...rest: A): E => make(409, "vc_already_revoked", message, ...rest),
    /** 400 `push_owner_mismatch` */
    pushOwnerMismatch: (message: string, ...rest: A): E => make(400, "push_owner_mismatch", message, ...rest),
    /** 400 `source_not_a_vault` */
    sourceNotAVault: (message: string, ...rest: A): E => make(400, "source_not_a_vault", message, ...rest),
    /** 400 `issuer_list_too_long` */
    issuerListTooLong: (message: string, ...rest: A): E => make(400, "issuer_list_too_long", message, ...rest),
    /** 400 `input_too_long` */
    inputTooLong: (message: string, ...rest: A): E => make(400, "input_too_long", message, ...rest),
    /** 400 `fee_invalid` */
    feeInvalid: (message: string, ...rest: A): E => make(400, "fee_invalid", message, ...rest),
    /** 400 `expiresAt_in_past` */
    expiresAtInPast: (message: string, ...rest: A): E => make(400, "expiresAt_in_past", message, ...rest),
    /** 400 `challenge_invalid` */
    challengeInvalid: (message: string, ...rest: A): E => make(400, "challenge_invalid", message, ...rest),
    /** 401 `missing_api_key` */
    missingApiKey: (message: string, ...rest: A): E => make(401, "missing_api_key", message, ...rest),
    /** 401 `invalid_api_key` */
    invalidApiKey: (message: string, ...rest: A): E => make(401, "invalid_api_key", message, ...rest),
    /** 401 `api_key_expired` */
    apiKeyExpired: (message: string, ...rest: A): E => make(401, "api_key_expired", message, ...rest),
    /** 403 `forbidden` */
    forbidden: (message: string, ...rest: A): E => make(403, "forbidden", message, ...rest),
    /** 403 `wallet_not_linked` */
    walletNotLinked: (message: string, ...rest: A): E => make(403, "wallet_not_linked", message, ...rest),
    /** 403 `insufficient_scope` */
    insufficientScope: (message: string, ...rest: A): E => make(403, "insufficient_scope", message, ...rest),
    /** 403 `admin_required` */
    adminRequired: (message: string, ...rest: A): E => make(403, "admin_required", message, ...rest),
    /** 403 `issuer_denied` */
    issuerDenied: (message: string, ...rest: A): E => make(403, "issuer_denied", message, ...rest),
    /** 403 `origin_not_allowed` */
    originNotAllowed: (message: string, ...rest: A): E => make(403, "origin_not_allowed", message, ...rest),
    /** 403 `account_not_found` */
    accountNotFound: (message: string, ...rest: A): E => make(403, "account_not_found", message, ...rest),
    /** 404 `not_found` */
    notFound: (message: string, ...rest: A): E => make(404, "not_found", message, ...rest),
    /** 410 `route_removed` */
    routeRemoved: (message: string, ...rest: A): E => make(410, "route_removed", message, ...rest),
    /** 405 `method_not_allowed` */
    methodNotAllowed: (message: string, ...rest: A): E => make(405, "method_not_allowed", message, ...rest),
    /** 404 `vault_not_found` */
    vaultNotFound: (message: string, ...rest: A): E => make(404, "vault_not_found", message, ...rest),
    /** 404 `vc_not_found` */
    vcNotFound: (message: string, ...rest: A): E => make(404, "vc_not_found", message, ...rest),
    /** 409 `state_archived` */
    stateArchived: (message: string, ...rest: A): E => make(409, "state_archived", message, ...rest),
    /** 404 `key_not_found` */
    keyNotFound: (message: string, ...rest: A): E => make(404, "key_not_found", message, ...rest),
    /** 409 `vc_already_exists` */
    vcAlreadyExists: (message: string, ...rest: A): E => make(409, "vc_already_exists", message, ...rest),
    /** 409 `tx_stale` */
    txStale: (message: string, ...rest: A): E => make(409, "tx_stale", message, ...rest),
    /** 409 `vault_revoked` */
    vaultRevoked: (message: string, ...rest: A): E => make(409, "vault_revoked", message, ...rest),
    /** 409 `idempotency_in_progress` */
    idempotencyInProgress: (message: string, ...rest: A): E => make(409, "idempotency_in_progress", message, ...rest),
    /** 409 `key_exists` */
    keyExists: (message: string, ...rest: A): E => make(409, "key_exists", message, ...rest),
    /** 413 `payload_too_large` */
    payloadTooLarge: (message: string, ...rest: A): E => make(413, "payload_too_large", message, ...rest),
    /** 415 `unsupported_content_encoding` */
    unsupportedContentEncoding: (message: string, ...rest: A): E => make(415, "unsupported_content_encoding", message, ...rest),
    /** 422 `idempotency_key_reused` */
    idempotencyKeyReused: (message: string, ...rest: A): E => make(422, "idempotency_key_reused", message, ...rest),
    /** 429 `rate_limit_exceeded` */
    rateLimitExceeded: (message: string, ...rest: A): E => make(429, "rate_limit_exceeded", message, ...rest),
    /** 429 `write_rate_limit_exceeded` */
    writeRateLimitExceeded: (message: string, ...rest: A): E => make(429, "write_rate_limit_exceeded", message, ...rest),
    /** 429 `challenge_quota_exceeded` */
    challengeQuotaExceeded: (message: string, ...rest: A): E => make(429, "challenge_quota_exceeded", message, ...rest),
    /** 431 `headers_too_large` */
    headersTooLarge: (message: string, ...rest: A): E => make(431, "headers_too_large", message, ...rest),
    /** 500 `internal_error` */
    internalError: (message: string, ...rest: A): E => make(500, "internal_error", message, ...rest),
    /** 500 `vc_decryption_failed` */
    vcDecryptionFailed: (message: string, ...rest: A): E => make(500, "vc_decryption_failed", message, ...rest),
    /** 502 `chain_unavailable` */
    chainUnavailable: (message: string, ...rest: A): E => make(502, "chain_unavailable", message, ...rest),
    /** 503 `rate_limit_unavailable` */
    rateLimitUnavailable: (message: string, ...rest: A): E => make(503, "rate_limit_unavailable", message, ...rest),
    /** 503 `store_unavailable` */
    storeUnavailable: (message: string, ...rest: A): E => make(503, "store_unavailable", message, ...rest),
    /** 504 `tx_timeout` */
    txTimeout: (message: string, ...rest: A): E => make(504, "tx_timeout", message, ...rest),
  } as const;
}
