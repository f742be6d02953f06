-- Webhook operations: throttles per subscription, recovery, the attempt's request, and incidents that tell the owner
-- (docs/webhook-deliveries.md is the delivery's state machine; docs/decisions/0011-webhook-throttles.md the choice).

ALTER TABLE webhooks
  ADD COLUMN disabled_at timestamptz,
  ADD COLUMN max_deliveries_per_second integer CHECK (max_deliveries_per_second BETWEEN 1 AND 1000),
  ADD COLUMN max_concurrent_deliveries integer CHECK (max_concurrent_deliveries BETWEEN 1 AND 50);
UPDATE webhooks SET disabled_at = updated_at WHERE NOT enabled;

-- The attempt number after which the delivery's current round of the retry schedule began: 0 for a delivery's first
-- round, its attempt count when a recovery sent it again (the recovered attempt starts the schedule afresh).
ALTER TABLE deliveries ADD COLUMN schedule_offset integer NOT NULL DEFAULT 0;

-- What an attempt sent besides the body (which the delivery keeps): the headers, signatures included.
ALTER TABLE delivery_attempts ADD COLUMN request_headers jsonb;

-- The pace of a subscription with `max_deliveries_per_second` (r): the start times of its last r attempts, and the last
-- start slot handed out to work that was due at once. Attempts start only while fewer than r started in the last
-- 1.05 seconds (the 50 ms are for the network: a receiver must not see r + 1 arrive within one second because two
-- requests took different times on the way); work enqueued together is spread over slots 1.1/r seconds apart so that
-- it does not all come due at once.
CREATE TABLE webhook_pacing (
  webhook_id     text PRIMARY KEY REFERENCES webhooks (id) ON DELETE CASCADE,
  recent_starts  timestamptz[] NOT NULL DEFAULT '{}',
  reserved_until timestamptz NOT NULL DEFAULT '-infinity'
);

-- The pace rows of these subscriptions, made when missing and locked in id order, so that two callers never wait on
-- each other in a cycle.
CREATE FUNCTION lock_webhook_pacing(p_webhook_ids text[]) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO webhook_pacing (webhook_id)
  SELECT DISTINCT id FROM unnest(p_webhook_ids) AS id ORDER BY id
  ON CONFLICT (webhook_id) DO NOTHING;
  PERFORM 1 FROM webhook_pacing WHERE webhook_id = ANY (p_webhook_ids) ORDER BY webhook_id FOR UPDATE;
END
$$;

-- Start slots for work due at once, one per element, in order: element i of subscription w (paced at p_rates[i] per
-- second) gets the later of now and w's last slot plus 1.1/rate.
CREATE FUNCTION reserve_delivery_slots(p_webhook_ids text[], p_rates integer[])
RETURNS timestamptz[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  now_ts timestamptz := clock_timestamp();
  slots timestamptz[] := '{}';
  slot timestamptz;
BEGIN
  PERFORM lock_webhook_pacing(p_webhook_ids);
  FOR i IN 1 .. coalesce(array_length(p_webhook_ids, 1), 0) LOOP
    UPDATE webhook_pacing
       SET reserved_until = greatest(reserved_until + make_interval(secs => 1.1 / p_rates[i]), now_ts)
     WHERE webhook_id = p_webhook_ids[i]
    RETURNING reserved_until INTO slot;
    slots := slots || slot;
  END LOOP;
  RETURN slots;
END
$$;

-- Admission of attempts about to start, one per element: NULL when it may start now (its start is recorded), else a
-- start slot for it: the later of when the window frees (the oldest of the last r starts leaves it) and the last slot
-- handed out plus 1.1/r, so that attempts turned away together come back spread out.
CREATE FUNCTION admit_delivery_starts(p_webhook_ids text[], p_rates integer[])
RETURNS timestamptz[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  now_ts timestamptz := clock_timestamp();
  answers timestamptz[] := '{}';
  starts timestamptz[];
  slot timestamptz;
BEGIN
  PERFORM lock_webhook_pacing(p_webhook_ids);
  FOR i IN 1 .. coalesce(array_length(p_webhook_ids, 1), 0) LOOP
    SELECT coalesce(array_agg(s ORDER BY s), '{}') INTO starts
      FROM webhook_pacing, unnest(recent_starts) AS s
     WHERE webhook_id = p_webhook_ids[i] AND s > now_ts - interval '1050 milliseconds';
    IF coalesce(array_length(starts, 1), 0) < p_rates[i] THEN
      UPDATE webhook_pacing SET recent_starts = starts || now_ts WHERE webhook_id = p_webhook_ids[i];
      answers := answers || NULL::timestamptz;
    ELSE
      UPDATE webhook_pacing
         SET recent_starts = starts,
             reserved_until = greatest(reserved_until + make_interval(secs => 1.1 / p_rates[i]),
                                       starts[array_length(starts, 1) - p_rates[i] + 1] + interval '1050 milliseconds')
       WHERE webhook_id = p_webhook_ids[i]
      RETURNING reserved_until INTO slot;
      answers := answers || slot;
    END IF;
  END LOOP;
  RETURN answers;
END
$$;

-- Something the workspace's owner is told about once: a subscription's deliveries exhausting their attempts
-- (`exhausted`, closed when one succeeds or the subscription is re-enabled) or the subscription disabled by delivery
-- (`disabled`, closed when it is re-enabled). At most one open incident of a kind per subscription.
CREATE TABLE webhook_incidents (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id  text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('exhausted', 'disabled')),
  opened_at   timestamptz NOT NULL DEFAULT now(),
  notified_at timestamptz,
  closed_at   timestamptz
);
CREATE UNIQUE INDEX webhook_incidents_open ON webhook_incidents (webhook_id, kind) WHERE closed_at IS NULL;

-- As 0009's, and the attempt's request headers are kept, and a subscription disabled here says since when. The retry
-- schedule's position is the caller's (the outcome's `status` and `delay_seconds`).
CREATE OR REPLACE FUNCTION record_attempt_outcomes(p_outcomes jsonb, p_disable_after_seconds float8)
RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  o record;
  written integer := 0;
BEGIN
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

-- W3C Trace Context: the request that caused an event keeps its trace with the event, and the event's deliveries keep
-- it too, so that every attempt sends a `traceparent` of the caller's trace (lib/trace-context.ts).
ALTER TABLE event_outbox ADD COLUMN traceparent text, ADD COLUMN tracestate text;
ALTER TABLE events ADD COLUMN traceparent text, ADD COLUMN tracestate text;
ALTER TABLE deliveries ADD COLUMN traceparent text, ADD COLUMN tracestate text;

-- As 0010's, carrying each event's trace from the outbox into `events` and to the caller (its result gains two
-- columns, so the function is made again).
DROP FUNCTION sequence_events(integer);
CREATE FUNCTION sequence_events(p_rows integer)
RETURNS TABLE (
  id text, workspace_id text, type text, data jsonb, created_at timestamptz, sequence bigint, traceparent text,
  tracestate text, webhook_ids text[]
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(726354002);
  RETURN QUERY
  WITH picked AS (
    SELECT DISTINCT w.txid FROM (SELECT o.txid FROM event_outbox o ORDER BY o.serial LIMIT p_rows) w
  ), taken AS (
    DELETE FROM event_outbox o USING picked p WHERE o.txid = p.txid
    RETURNING o.serial, o.txid, o.id, o.workspace_id, o.type, o.data, o.created_at, o.traceparent, o.tracestate
  ), numbered AS (
    SELECT x.*, row_number() OVER (PARTITION BY x.workspace_id ORDER BY x.txn_last, x.serial) AS n,
           count(*) OVER (PARTITION BY x.workspace_id) AS c
      FROM (SELECT t.*, max(t.serial) OVER (PARTITION BY t.txid) AS txn_last FROM taken t) x
  ), counters AS (
    INSERT INTO event_sequences AS s (workspace_id, last_sequence)
    SELECT DISTINCT nb.workspace_id, nb.c FROM numbered nb
    ON CONFLICT ON CONSTRAINT event_sequences_pkey DO UPDATE SET last_sequence = s.last_sequence + EXCLUDED.last_sequence
    RETURNING s.workspace_id, s.last_sequence
  ), written AS (
    INSERT INTO events (id, workspace_id, type, data, created_at, sequence, traceparent, tracestate)
    SELECT nb.id, nb.workspace_id, nb.type, nb.data, nb.created_at, k.last_sequence - nb.c + nb.n, nb.traceparent,
           nb.tracestate
      FROM numbered nb JOIN counters k ON k.workspace_id = nb.workspace_id
    RETURNING events.id, events.workspace_id, events.type, events.data, events.created_at, events.sequence,
              events.traceparent, events.tracestate
  )
  SELECT w.id, w.workspace_id, w.type, w.data, w.created_at, w.sequence, w.traceparent, w.tracestate,
         ARRAY(SELECT h.id FROM webhooks h
                WHERE h.workspace_id = w.workspace_id AND h.enabled AND w.type = ANY (h.events)
                ORDER BY h.id)
    FROM written w
   ORDER BY w.workspace_id, w.sequence;
END
$$;
