-- A replayed write answers the bytes of its first answer. jsonb keeps no key order, so the body is also kept as the
-- text that was sent, with the headers that belong to the answer (`Location` of a 201).

ALTER TABLE idempotency_keys
  ADD COLUMN response_text text,
  ADD COLUMN response_headers jsonb;

-- record_idempotency_key() with the answer's text and headers. `response_body` is still written, for the processes of
-- the version before during a rolling deploy, which replay from it. Remove when: no process older than this migration
-- runs (then drop record_idempotency_key() and `response_body`'s writes, and read `response_text` alone).
CREATE FUNCTION record_idempotent_answer(
  p_workspace_id text, p_key text, p_fingerprint bytea, p_status integer, p_text text, p_headers jsonb, p_hours integer
) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO idempotency_keys
    (workspace_id, key, fingerprint, response_status, response_body, response_text, response_headers, expires_at)
  VALUES (p_workspace_id, p_key, p_fingerprint, p_status, p_text::jsonb, p_text, p_headers,
          now() + make_interval(hours => p_hours))
  ON CONFLICT (workspace_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
        response_body = EXCLUDED.response_body, response_text = EXCLUDED.response_text,
        response_headers = EXCLUDED.response_headers, created_at = now(), expires_at = EXCLUDED.expires_at
    WHERE idempotency_keys.expires_at <= now();
  IF NOT FOUND THEN
    RAISE EXCEPTION 'another request recorded this idempotency key first' USING ERRCODE = 'IK001';
  END IF;
END
$$;
