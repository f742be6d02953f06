-- One lock order for a subscription and what hangs off it (docs/webhook-deliveries.md, "Lock order"): the subscription
-- rows first, in id order, then its deliveries, then its incidents, then its pace. These two functions took a pace row,
-- or a delivery row, before the subscription row that a concurrent test send, change or deletion held first, and the
-- two waited on each other (40P01, issue 41).

-- As 0011's, and the subscriptions come first: their rows are held (FOR KEY SHARE, which a change of the subscription
-- does not wait for, and its deletion does) before their pace rows are made or locked. The insert's foreign key check
-- then waits for nothing; a subscription deleted meanwhile gets no pace row, and no slot.
CREATE OR REPLACE FUNCTION lock_webhook_pacing(p_webhook_ids text[]) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM 1 FROM webhooks WHERE id = ANY (p_webhook_ids) ORDER BY id FOR KEY SHARE;
  INSERT INTO webhook_pacing (webhook_id)
  SELECT id FROM webhooks WHERE id = ANY (p_webhook_ids) ORDER BY id
  ON CONFLICT (webhook_id) DO NOTHING;
  PERFORM 1 FROM webhook_pacing WHERE webhook_id = ANY (p_webhook_ids) ORDER BY webhook_id FOR UPDATE;
END
$$;
COMMENT ON FUNCTION lock_webhook_pacing(text[]) IS
  'Holds these subscriptions, then makes their pace rows when missing and locks them, each in id order (the lock order of docs/webhook-deliveries.md).';

-- As 0011's, and the subscriptions of the outcomes are locked first, in id order, with the lock their health update
-- takes (FOR NO KEY UPDATE), before any delivery row: a test send or a change holds the subscription and then waits for
-- nothing this function holds.
CREATE OR REPLACE FUNCTION save_attempt_outcomes(p_outcomes jsonb, p_disable_after_seconds float8)
RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  o record;
  written integer := 0;
BEGIN
  PERFORM 1 FROM webhooks
   WHERE id IN (SELECT x.webhook_id FROM jsonb_to_recordset(p_outcomes) AS x(webhook_id text))
   ORDER BY id FOR NO KEY UPDATE;
  FOR o IN
    SELECT * FROM jsonb_to_recordset(p_outcomes) AS x(
      delivery_id text, attempt integer, started_at timestamptz, duration_ms integer, response_status integer,
      response_body text, error text, request_headers jsonb, status text, delay_seconds float8, webhook_id text,
      health text)
    ORDER BY webhook_id, delivery_id
  LOOP
    UPDATE deliveries
       SET status = o.status, attempt_count = o.attempt, updated_at = now(),
           next_attempt_at = CASE WHEN o.status = 'pending' THEN now() + make_interval(secs => o.delay_seconds) END
     WHERE id = o.delivery_id AND status = 'pending' AND attempt_count = o.attempt - 1;
    CONTINUE WHEN NOT FOUND;
    INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, response_body, error,
                                   request_headers)
    VALUES (o.delivery_id, o.attempt, o.started_at, o.duration_ms, o.response_status, o.response_body, o.error,
            o.request_headers)
    ON CONFLICT DO NOTHING;
    CASE o.health
      WHEN 'healthy' THEN
        UPDATE webhooks SET failing_since = NULL WHERE id = o.webhook_id AND failing_since IS NOT NULL;
      WHEN 'gone' THEN
        UPDATE webhooks SET enabled = false, disabled_reason = 'endpoint_gone', disabled_at = now(), updated_at = now()
         WHERE id = o.webhook_id AND enabled;
      WHEN 'failing' THEN
        UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = o.webhook_id;
        UPDATE webhooks SET enabled = false, disabled_reason = 'failing', disabled_at = now(), updated_at = now()
         WHERE id = o.webhook_id AND enabled
           AND failing_since < now() - make_interval(secs => p_disable_after_seconds);
    END CASE;
    written := written + 1;
  END LOOP;
  RETURN written;
END
$$;
