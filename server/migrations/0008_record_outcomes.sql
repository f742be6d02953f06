-- Delivery attempts' outcomes, several in one statement that commits on its own (deliveries.store.ts recordOutcomes;
-- the worker writes the outcomes that arrive while it writes the previous ones together). As a transaction per
-- outcome it took five round trips and a WAL flush per delivery (BEGIN, the attempt, the delivery, the subscription's
-- health, COMMIT): during a drain, the PostgreSQL backends serving them spent more CPU per delivery than the worker
-- itself, CPU taken from the API on the same machine.
--
-- p_outcomes is a JSON array of objects: delivery_id, attempt, started_at, duration_ms, response_status,
-- response_body, error (the attempt); status, the delivery's next state ('pending' with delay_seconds until the retry,
-- 'succeeded' or 'failed'); webhook_id and health, what the answer says of the subscription ('healthy' ends a failing
-- streak, 'failing' starts or continues one and disables it after p_disable_after_seconds of it, 'gone' disables it at
-- once). They are written in the order of their subscriptions, so that two writers lock subscriptions in one order.
-- The delivery's row is updated (and so locked) before its attempt is written: an outcome whose delivery is gone (its
-- subscription was deleted during the attempt) is skipped. Returns the number of outcomes written.
CREATE FUNCTION record_delivery_outcomes(p_outcomes jsonb, p_disable_after_seconds float8)
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
       SET status = o.status, attempt_count = o.attempt, updated_at = now(), leased_until = NULL,
           next_attempt_at = CASE WHEN o.status = 'pending' THEN now() + make_interval(secs => o.delay_seconds) END
     WHERE id = o.delivery_id;
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
