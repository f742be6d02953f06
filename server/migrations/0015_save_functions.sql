-- One meaning per name: an event is *recorded* (the change stream); a function that writes the result of a request or
-- of an attempt *saves* it.
--
-- Contract: the functions that no version since 0012 calls.
DROP FUNCTION record_idempotency_key(text, text, bytea, integer, jsonb, integer);
DROP FUNCTION idempotency_key_taken();

-- Expand: the new names. The old ones stay, as wrappers, for the processes of the version before during a rolling
-- deploy. Remove when: no process older than this migration runs (then drop record_attempt_outcomes() and
-- record_idempotent_answer()).
ALTER FUNCTION record_attempt_outcomes(jsonb, float8) RENAME TO save_attempt_outcomes;
CREATE FUNCTION record_attempt_outcomes(p_outcomes jsonb, p_disable_after_seconds float8)
RETURNS integer LANGUAGE sql VOLATILE AS $$
  SELECT save_attempt_outcomes(p_outcomes, p_disable_after_seconds)
$$;

ALTER FUNCTION record_idempotent_answer(text, text, bytea, integer, text, jsonb, integer)
  RENAME TO save_idempotent_answer;
CREATE FUNCTION record_idempotent_answer(
  p_workspace_id text, p_key text, p_fingerprint bytea, p_status integer, p_text text, p_headers jsonb, p_hours integer
) RETURNS void LANGUAGE sql VOLATILE AS $$
  SELECT save_idempotent_answer(p_workspace_id, p_key, p_fingerprint, p_status, p_text, p_headers, p_hours)
$$;
