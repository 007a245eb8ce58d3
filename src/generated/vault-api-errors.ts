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
