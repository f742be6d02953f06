-- The deliveries table becomes the log of deliveries (what the console and /v1 show), no longer their queue: every
-- attempt is a pg-boss job (domain/webhooks/delivery-jobs.ts), so the claim's index and the lease go.
DROP INDEX deliveries_due;
ALTER TABLE deliveries DROP COLUMN leased_until;

COMMENT ON COLUMN deliveries.next_attempt_at IS
  'When the next attempt of a pending delivery is due (its pg-boss job starts then); NULL once settled.';

-- The functions of 0007 and 0008 give way to ones of new names, so that a process of the previous version still running
-- during the upgrade fails loudly rather than writing deliveries without jobs or outcomes without their next job.

-- record_event_deliveries() returns the deliveries it made, so that the caller enqueues their first attempts as pg-boss
-- jobs in the same transaction; pg-boss sends the wake-up itself.
DROP FUNCTION record_event(text, text, text, jsonb, timestamptz, text);
CREATE FUNCTION record_event_deliveries(
  p_id text, p_workspace_id text, p_type text, p_data jsonb, p_created_at timestamptz, p_payload text
) RETURNS TABLE (delivery_id text) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO events (id, workspace_id, type, data, created_at)
  VALUES (p_id, p_workspace_id, p_type, p_data, p_created_at);
  RETURN QUERY
  INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, next_attempt_at)
  SELECT 'dlv_' || substr(p_id, 5, 10) || upper(substr(md5(p_id || webhook.id), 1, 16)),
         p_workspace_id, webhook.id, p_id, p_type, p_payload, 'pending', now()
    FROM webhooks webhook
   WHERE webhook.workspace_id = p_workspace_id AND webhook.enabled AND p_type = ANY (webhook.events)
  RETURNING deliveries.id;
END
$$;

-- As 0008's record_delivery_outcomes(), without the lease, and fenced: an outcome is written only for the attempt that
-- follows the last one in the log, of a delivery still pending. A late outcome (its worker lost the job's claim, and
-- another worker made the attempt again and recorded it) is skipped, so it can neither undo a success nor set the
-- attempt count back.
DROP FUNCTION record_delivery_outcomes(jsonb, float8);
CREATE FUNCTION record_attempt_outcomes(p_outcomes jsonb, p_disable_after_seconds float8)
RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  o record;
  written integer := 0;
BEGIN
  FOR o IN
    SELECT * FROM jsonb_to_recordset(p_outcomes) AS x(
      delivery_id text, attempt integer, started_at timestamptz, duration_ms integer, response_status integer,
      response_body text, error text, status text, delay_seconds float8, webhook_id text, health text)
    ORDER BY webhook_id, delivery_id
  LOOP
    UPDATE deliveries
       SET status = o.status, attempt_count = o.attempt, updated_at = now(),
           next_attempt_at = CASE WHEN o.status = 'pending' THEN now() + make_interval(secs => o.delay_seconds) END
     WHERE id = o.delivery_id AND status = 'pending' AND attempt_count = o.attempt - 1;
    CONTINUE WHEN NOT FOUND;
    INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, response_body, error)
    VALUES (o.delivery_id, o.attempt, o.started_at, o.duration_ms, o.response_status, o.response_body, o.error)
    ON CONFLICT DO NOTHING;
    CASE o.health
      WHEN 'healthy' THEN
        UPDATE webhooks SET failing_since = NULL WHERE id = o.webhook_id AND failing_since IS NOT NULL;
      WHEN 'gone' THEN
        UPDATE webhooks SET enabled = false, disabled_reason = 'endpoint_gone', updated_at = now()
         WHERE id = o.webhook_id;
      WHEN 'failing' THEN
        UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = o.webhook_id;
        UPDATE webhooks SET enabled = false, disabled_reason = 'failing', updated_at = now()
         WHERE id = o.webhook_id AND failing_since < now() - make_interval(secs => p_disable_after_seconds);
    END CASE;
    written := written + 1;
  END LOOP;
  RETURN written;
END
$$;
