// The error codes of did-resolver.yaml (components.x-error-codes), written by scripts/generate.mjs.
// Do not edit: change the spec and run npm run generate.

/** Every code the spec lists, with its status; `[i]` stands for an item's index. */
export const RESOLVER_ERROR_CODES = [
  { code: "invalid_request", status: 400 },
  { code: "invalid_body_encoding", status: 400 },
  { code: "did_invalid", status: 400 },
  { code: "invalid_record", status: 400 },
  { code: "key_count_invalid", status: 400 },
  { code: "key_invalid", status: 400 },
  { code: "duplicate_key", status: 400 },
  { code: "service_invalid", status: 400 },
  { code: "url_not_https", status: 400 },
  { code: "metadata_inconsistent", status: 400 },
  { code: "tx_operation_mismatch", status: 400 },
  { code: "tx_expired", status: 400 },
  { code: "tx_submission_failed", status: 400 },
  { code: "challenge_expired", status: 401 },
  { code: "domain_mismatch", status: 401 },
  { code: "nonce_invalid", status: 401 },
  { code: "signature_invalid", status: 401 },
  { code: "did_not_found", status: 404 },
  { code: "not_found", status: 404 },
  { code: "method_not_allowed", status: 405 },
  { code: "did_already_exists", status: 409 },
  { code: "version_mismatch", status: 409 },
  { code: "tx_stale", status: 409 },
  { code: "did_deactivated", status: 409 },
  { code: "payload_too_large", status: 413 },
  { code: "unsupported_content_encoding", status: 415 },
  { code: "rate_limited", status: 429 },
  { code: "headers_too_large", status: 431 },
  { code: "internal_error", status: 500 },
  { code: "ledger_unavailable", status: 502 },
  { code: "nonce_store_unavailable", status: 503 },
] as const;

/** A code of the spec's error envelope. */
export type ResolverErrorCode =
  | "invalid_request"
  | "invalid_body_encoding"
  | "did_invalid"
  | "invalid_record"
  | "key_count_invalid"
  | "key_invalid"
  | "duplicate_key"
  | "service_invalid"
  | "url_not_https"
  | "metadata_inconsistent"
  | "tx_operation_mismatch"
  | "tx_expired"
  | "tx_submission_failed"
  | "challenge_expired"
  | "domain_mismatch"
  | "nonce_invalid"
  | "signature_invalid"
  | "did_not_found"
  | "not_found"
  | "method_not_allowed"
  | "did_already_exists"
  | "version_mismatch"
  | "tx_stale"
  | "did_deactivated"
  | "payload_too_large"
  | "unsupported_content_encoding"
  | "rate_limited"
  | "headers_too_large"
  | "internal_error"
  | "ledger_unavailable"
  | "nonce_store_unavailable";

/** The status the spec gives each code (the families of `[i]` codes under their listed name). */
export const RESOLVER_ERROR_STATUS: Readonly<Record<(typeof RESOLVER_ERROR_CODES)[number]['code'], number>> = Object.fromEntries(
  RESOLVER_ERROR_CODES.map((e) => [e.code, e.status]),
) as Record<(typeof RESOLVER_ERROR_CODES)[number]['code'], number>;
