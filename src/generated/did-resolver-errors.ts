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
  { code: "method_not_supported", status: 400 },
  { code: "secret_mode_unsupported", status: 400 },
  { code: "did_document_unsupported", status: 400 },
  { code: "job_not_found", status: 400 },
  { code: "job_expired", status: 400 },
  { code: "signing_response_invalid", status: 400 },
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
  { code: "index_unavailable", status: 503 },
  { code: "registrar_unavailable", status: 503 },
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
  | "method_not_supported"
  | "secret_mode_unsupported"
  | "did_document_unsupported"
  | "job_not_found"
  | "job_expired"
  | "signing_response_invalid"
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
  | "nonce_store_unavailable"
  | "index_unavailable"
  | "registrar_unavailable";

/** The status the spec gives each code (the families of `[i]` codes under their listed name). */
export const RESOLVER_ERROR_STATUS: Readonly<Record<(typeof RESOLVER_ERROR_CODES)[number]['code'], number>> = Object.fromEntries(
  RESOLVER_ERROR_CODES.map((e) => [e.code, e.status]),
) as Record<(typeof RESOLVER_ERROR_CODES)[number]['code'], number>;

/**
 * Named constructors of the codes, each with its status: `resolverErrorsOf(make).vcNotFound(message)`. `make`
 * builds the service's error; a family's constructor (`[i]`) takes the item's index first.
 */
export function resolverErrorsOf<E, A extends unknown[] = []>(
  make: (status: number, code: ResolverErrorCode, message: string, ...rest: A) => E,
) {
  return {
    /** 400 `invalid_request` */
    invalidRequest: (message: string, ...rest: A): E => make(400, "invalid_request", message, ...rest),
    /** 400 `invalid_body_encoding` */
    invalidBodyEncoding: (message: string, ...rest: A): E => make(400, "invalid_body_encoding", message, ...rest),
    /** 400 `did_invalid` */
    didInvalid: (message: string, ...rest: A): E => make(400, "did_invalid", message, ...rest),
    /** 400 `invalid_record` */
    invalidRecord: (message: string, ...rest: A): E => make(400, "invalid_record", message, ...rest),
    /** 400 `key_count_invalid` */
    keyCountInvalid: (message: string, ...rest: A): E => make(400, "key_count_invalid", message, ...rest),
    /** 400 `key_invalid` */
    keyInvalid: (message: string, ...rest: A): E => make(400, "key_invalid", message, ...rest),
    /** 400 `duplicate_key` */
    duplicateKey: (message: string, ...rest: A): E => make(400, "duplicate_key", message, ...rest),
    /** 400 `service_invalid` */
    serviceInvalid: (message: string, ...rest: A): E => make(400, "service_invalid", message, ...rest),
    /** 400 `url_not_https` */
    urlNotHttps: (message: string, ...rest: A): E => make(400, "url_not_https", message, ...rest),
    /** 400 `metadata_inconsistent` */
    metadataInconsistent: (message: string, ...rest: A): E => make(400, "metadata_inconsistent", message, ...rest),
    /** 400 `tx_operation_mismatch` */
    txOperationMismatch: (message: string, ...rest: A): E => make(400, "tx_operation_mismatch", message, ...rest),
    /** 400 `tx_expired` */
    txExpired: (message: string, ...rest: A): E => make(400, "tx_expired", message, ...rest),
    /** 400 `tx_submission_failed` */
    txSubmissionFailed: (message: string, ...rest: A): E => make(400, "tx_submission_failed", message, ...rest),
    /** 400 `method_not_supported` */
    methodNotSupported: (message: string, ...rest: A): E => make(400, "method_not_supported", message, ...rest),
    /** 400 `secret_mode_unsupported` */
    secretModeUnsupported: (message: string, ...rest: A): E => make(400, "secret_mode_unsupported", message, ...rest),
    /** 400 `did_document_unsupported` */
    didDocumentUnsupported: (message: string, ...rest: A): E => make(400, "did_document_unsupported", message, ...rest),
    /** 400 `job_not_found` */
    jobNotFound: (message: string, ...rest: A): E => make(400, "job_not_found", message, ...rest),
    /** 400 `job_expired` */
    jobExpired: (message: string, ...rest: A): E => make(400, "job_expired", message, ...rest),
    /** 400 `signing_response_invalid` */
    signingResponseInvalid: (message: string, ...rest: A): E => make(400, "signing_response_invalid", message, ...rest),
    /** 401 `challenge_expired` */
    challengeExpired: (message: string, ...rest: A): E => make(401, "challenge_expired", message, ...rest),
    /** 401 `domain_mismatch` */
    domainMismatch: (message: string, ...rest: A): E => make(401, "domain_mismatch", message, ...rest),
    /** 401 `nonce_invalid` */
    nonceInvalid: (message: string, ...rest: A): E => make(401, "nonce_invalid", message, ...rest),
    /** 401 `signature_invalid` */
    signatureInvalid: (message: string, ...rest: A): E => make(401, "signature_invalid", message, ...rest),
    /** 404 `did_not_found` */
    didNotFound: (message: string, ...rest: A): E => make(404, "did_not_found", message, ...rest),
    /** 404 `not_found` */
    notFound: (message: string, ...rest: A): E => make(404, "not_found", message, ...rest),
    /** 405 `method_not_allowed` */
    methodNotAllowed: (message: string, ...rest: A): E => make(405, "method_not_allowed", message, ...rest),
    /** 409 `did_already_exists` */
    didAlreadyExists: (message: string, ...rest: A): E => make(409, "did_already_exists", message, ...rest),
    /** 409 `version_mismatch` */
    versionMismatch: (message: string, ...rest: A): E => make(409, "version_mismatch", message, ...rest),
    /** 409 `tx_stale` */
    txStale: (message: string, ...rest: A): E => make(409, "tx_stale", message, ...rest),
    /** 409 `did_deactivated` */
    didDeactivated: (message: string, ...rest: A): E => make(409, "did_deactivated", message, ...rest),
    /** 413 `payload_too_large` */
    payloadTooLarge: (message: string, ...rest: A): E => make(413, "payload_too_large", message, ...rest),
    /** 415 `unsupported_content_encoding` */
    unsupportedContentEncoding: (message: string, ...rest: A): E => make(415, "unsupported_content_encoding", message, ...rest),
    /** 429 `rate_limited` */
    rateLimited: (message: string, ...rest: A): E => make(429, "rate_limited", message, ...rest),
    /** 431 `headers_too_large` */
    headersTooLarge: (message: string, ...rest: A): E => make(431, "headers_too_large", message, ...rest),
    /** 500 `internal_error` */
    internalError: (message: string, ...rest: A): E => make(500, "internal_error", message, ...rest),
    /** 502 `ledger_unavailable` */
    ledgerUnavailable: (message: string, ...rest: A): E => make(502, "ledger_unavailable", message, ...rest),
    /** 503 `nonce_store_unavailable` */
    nonceStoreUnavailable: (message: string, ...rest: A): E => make(503, "nonce_store_unavailable", message, ...rest),
    /** 503 `index_unavailable` */
    indexUnavailable: (message: string, ...rest: A): E => make(503, "index_unavailable", message, ...rest),
    /** 503 `registrar_unavailable` */
    registrarUnavailable: (message: string, ...rest: A): E => make(503, "registrar_unavailable", message, ...rest),
  } as const;
}
