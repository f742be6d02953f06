-- An idempotent write records its key and commits in one round trip ("…; INSERT the key …; COMMIT" in one query,
-- idempotency.ts). When another request committed the same key first, the insert records nothing, and this
-- function turns that into an error (SQLSTATE IK001), so that the COMMIT after it in the same query does not run and
-- the write's effect is rolled back; the service then replays the first request's answer.
CREATE FUNCTION idempotency_key_taken() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'another request recorded this idempotency key first' USING ERRCODE = 'IK001';
END
$$;
