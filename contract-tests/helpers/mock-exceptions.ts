// The rules a Prism mock cannot check (contract-tests/mock-parity.test.ts allows a difference from the service only
// under one of them). docs/testing.md, "Where a mock cannot refuse", lists the same rules with the same codes:
// contract-tests/docs-claims.test.ts holds the two together.

/** A rule a mock cannot check, the codes the service answers it with, and why (docs/testing.md lists the same). */
export interface Exception {
  readonly rule: string;
  readonly why: string;
  /** The service's codes (`verified:false` for a verification result that does not verify). */
  readonly codes?: readonly string[];
  /** Or the corpus's mutation kinds. */
  readonly kinds?: readonly string[];
  /** Limited to these operations (`METHOD /template`), when given. */
  readonly operations?: readonly string[];
}

const SHARED: readonly Exception[] = [
  {
    rule: 'StrKey checksums',
    why: 'format stellar-account / stellar-contract checks a CRC16, which no pattern can state; Prism ignores formats it does not know',
    kinds: ['badChecksumStrKey'],
  },
];

export const VAULT_EXCEPTIONS: readonly Exception[] = [
  {
    rule: 'API keys',
    why: 'whether a key exists, its wallet, role, scopes and expiry are in the key store; Prism checks that a key header is present',
    codes: [
      'invalid_api_key',
      'api_key_expired',
      'forbidden',
      'wallet_not_linked',
      'insufficient_scope',
      'admin_required',
      'key_exists',
      'key_not_found',
    ],
  },
  {
    rule: 'The ledger',
    why: "vaults, credentials, DIDs, accounts, balances, the deployment's contracts and a transaction's outcome are on the chain",
    codes: [
      'vault_not_found',
      'vc_not_found',
      'vault_revoked',
      'vc_already_exists',
      'vc_already_revoked',
      'vault_already_deployed',
      'issuerDid_not_found',
      'issuerDid_deactivated',
      'issuerDid_controller_mismatch',
      'issuer_denied',
      'source_account_not_found',
      'trustline_missing',
      'insufficient_balance',
      'tx_failed',
      'tx_operation_mismatch',
      'verified:false',
    ],
  },
  {
    rule: "An envelope's decoding and signatures",
    why:
      "a pattern sees only the envelope's shape (base64, the envelope type's first bytes, its length); the service decodes the XDR, " +
      "requires a signature and verifies each Ed25519 signature over the transaction's hash (which covers the network passphrase) " +
      'and over each authorization entry it signs: computation, not state, that no JSON Schema states',
    codes: ['tx_invalid'],
  },
  {
    rule: 'Challenges',
    why: 'a challenge counts only if this service issued it, unused and unexpired',
    codes: ['challenge_invalid', 'challenge_expired'],
  },
  {
    rule: 'A key for a verification by reference',
    why: 'OpenAPI security is per operation: POST /credentials/verify takes a presented credential without a key, and needs one for a credential named by owner and vcId',
    codes: ['missing_api_key'],
    operations: ['POST /credentials/verify'],
  },
  ...SHARED,
];

export const RESOLVER_EXCEPTIONS: readonly Exception[] = [
  {
    rule: 'The ledger',
    why: "DIDs, their versions and controllers, accounts, the deployment's registry and a transaction's outcome are on the chain",
    codes: [
      'did_not_found',
      'notFound',
      'deactivated',
      'did_already_exists',
      'did_deactivated',
      'version_mismatch',
      'tx_operation_mismatch',
      'tx_failed',
    ],
  },
  {
    rule: "An envelope's decoding and signatures",
    why:
      "the same as the vault API's: a pattern sees only the envelope's shape; the resolver answers an envelope that does " +
      'not decode, or whose signatures do not verify, with invalid_request (spec/did-resolver.yaml SubmitRequest)',
    codes: ['invalid_request'],
    operations: [
      'POST /v1/dids/stellar',
      'POST /v1/dids/stellar/submit',
      'POST /v1/dids/stellar/{did}/update',
      'POST /v1/dids/stellar/{did}/transfer',
      'POST /v1/dids/stellar/{did}/deactivate',
    ],
  },
  {
    rule: 'Challenges',
    why: 'a proof of control counts only over a challenge this service issued, unexpired',
    codes: ['challenge_expired', 'challenge_invalid'],
  },
  ...SHARED,
];
