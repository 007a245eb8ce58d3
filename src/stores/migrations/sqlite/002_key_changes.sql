-- Every change of a stored key (revoked, replaced, rewritten, deleted), by any connection or process, is
-- logged with the key's hash. The key cache of the server reads the log by polling (src/stores/key-cache.ts,
-- src/stores/sqlite.ts) and forgets what changed. Writes are serialized by SQLite's write lock, so `seq`
-- grows in commit order; the log keeps the newest 10,000 entries, and a reader that finds a gap after its
-- last `seq` forgets everything instead.
CREATE TABLE api_key_changes (
  seq integer PRIMARY KEY AUTOINCREMENT,
  key_hash text NOT NULL
) STRICT;

CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys BEGIN
  INSERT INTO api_key_changes (key_hash) VALUES (OLD.key_hash);
END;

CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys BEGIN
  INSERT INTO api_key_changes (key_hash) VALUES (OLD.key_hash);
END;

CREATE TRIGGER api_key_changes_bounded AFTER INSERT ON api_key_changes BEGIN
  DELETE FROM api_key_changes WHERE seq <= NEW.seq - 10000;
END;
