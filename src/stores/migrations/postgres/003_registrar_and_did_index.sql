-- The resolver's DIF Universal Registrar jobs (src/stores/registrar-jobs.ts) and the reverse lookup of DIDs by
-- controller (src/stores/did-index.ts), both shared by every process that opens the database.
CREATE TABLE registrar_jobs (
  job_id text PRIMARY KEY,
  revision integer NOT NULL,
  body text NOT NULL,
  expires_at_ms bigint NOT NULL
);
CREATE INDEX registrar_jobs_expiry ON registrar_jobs (expires_at_ms);

CREATE TABLE did_index (
  network text NOT NULL,
  did_id text NOT NULL,
  controller text NOT NULL,
  version bigint NOT NULL,
  deactivated boolean NOT NULL,
  updated_ledger bigint NOT NULL,
  PRIMARY KEY (network, did_id)
);
CREATE INDEX did_index_by_controller ON did_index (network, controller, did_id);

CREATE TABLE did_index_progress (
  network text PRIMARY KEY,
  from_ledger bigint NOT NULL,
  to_ledger bigint NOT NULL,
  event_cursor text NOT NULL
);
