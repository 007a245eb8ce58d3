-- Every change of a stored key (revoked, replaced, rewritten, deleted) is announced at its commit on a
-- channel of this schema, with the key's hash; a TRUNCATE announces '*'. The key caches of every instance
-- listen there (src/stores/key-cache.ts, src/stores/postgres.ts) and forget what changed.
CREATE FUNCTION api_keys_announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('cv_keys_' || md5(TG_TABLE_SCHEMA), '*');
  ELSE
    PERFORM pg_notify('cv_keys_' || md5(TG_TABLE_SCHEMA), OLD.key_hash);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_keys_announce();
CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION api_keys_announce();
