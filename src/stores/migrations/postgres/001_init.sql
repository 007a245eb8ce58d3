-- API keys: only the SHA-256 of a key is stored (docs/vault-api.md "Authentication").
CREATE TABLE api_keys (
  key_id text PRIMARY KEY,
  key_hash text NOT NULL UNIQUE,
  wallet_address text,
  network text NOT NULL CHECK (network IN ('testnet', 'mainnet')),
  role text NOT NULL CHECK (role IN ('standard', 'early', 'admin')),
  scopes text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  CHECK (wallet_address IS NOT NULL OR role = 'admin')
);

-- One usable key per wallet per network; creating a new one revokes the old one first.
CREATE UNIQUE INDEX api_keys_one_per_wallet ON api_keys (wallet_address, network)
  WHERE revoked_at IS NULL AND wallet_address IS NOT NULL;

-- Idempotency records, per API key (scope) and Idempotency-Key header value.
-- expires_at_ms: end of the lease while in progress, completion + 24 h once completed; times are the
-- service's clock in epoch milliseconds.
CREATE TABLE idempotency_records (
  scope text NOT NULL,
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 200),
  request_hash text NOT NULL,
  token text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  -- JSON text (not jsonb) so a replay keeps the first response's key order.
  response text,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  PRIMARY KEY (scope, key)
);

CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at_ms);
