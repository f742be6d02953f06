-- Test mode (issue 42, docs/decisions/0018-test-mode-as-scopes.md): every workspace gets a second row, its test scope,
-- whose id is the workspace's with `_test`. Test keys, objects, events, idempotency keys, webhooks and deliveries
-- hang off that row, exactly as live ones hang off the workspace's, so that every query's `workspace_id` filter keeps
-- the two modes apart and each has its own event sequence.
ALTER TABLE workspaces DROP CONSTRAINT workspaces_id_check;
ALTER TABLE workspaces ADD CONSTRAINT workspaces_id_check CHECK (id ~ '^ws_[0-9A-HJKMNP-TV-Z]{26}(_test)?$');
-- A test scope belongs to its workspace: deleted with it, and never made for a workspace that does not exist.
ALTER TABLE workspaces ADD COLUMN live_workspace_id text
  GENERATED ALWAYS AS (CASE WHEN id LIKE '%\_test' THEN left(id, 29) END) STORED
  REFERENCES workspaces (id) ON DELETE CASCADE;
INSERT INTO workspaces (id, name, created_at)
SELECT w.id || '_test', w.name, w.created_at FROM workspaces w WHERE w.live_workspace_id IS NULL
ON CONFLICT (id) DO NOTHING;
COMMENT ON COLUMN workspaces.live_workspace_id IS
  'Set on a test scope (id ending in _test): the workspace whose test mode it is. Null on a workspace itself.';

-- When a feed last restarted at 1 (a reset of the test data): a follower past the new end was counting the old feed,
-- and is told so (410 EVENTS_RESET).
ALTER TABLE event_sequences ADD COLUMN restarted_at timestamptz;

CREATE TABLE test_data_resets (
  id           text PRIMARY KEY CHECK (id ~ '^tdr_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE CHECK (workspace_id LIKE '%\_test'),
  status       text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  deleted      jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
-- One reset at a time per test scope: asking again while one is pending or running answers that one.
CREATE UNIQUE INDEX test_data_resets_active ON test_data_resets (workspace_id) WHERE status IN ('pending', 'running');
CREATE INDEX test_data_resets_page ON test_data_resets (workspace_id, id DESC);
COMMENT ON TABLE test_data_resets IS
  'Each reset of a workspace''s test data (POST /v1/test-data/reset), carried out by a job in one transaction.';

-- Deletes a test scope's data; returns what it deleted, by kind. Called twice by a reset's job
-- (domain/test-data/test-data.service.ts): first without `p_restart`, in a transaction of its own that takes no lock
-- but the rows' (the bulk of the objects, while writes go on); then with it, in the reset's transaction, which holds
-- the sequencer's lock (sequence_events(): no pass numbers events meanwhile) and the scope's row (every write that
-- inserts a row of the scope holds it FOR KEY SHARE for its foreign keys: those in flight end first, new ones wait),
-- deletes what was made meanwhile and the events, and restarts the feed at 1. Only that second call is the reset: a
-- failure of it leaves the events and the feed as they were.
CREATE FUNCTION reset_test_data(p_scope text, p_restart boolean) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n_messages bigint;
  n_tickets bigint;
  n_conversations bigint;
  n_leads bigint;
  n_deliveries bigint;
  n_events bigint := 0;
BEGIN
  IF p_scope NOT LIKE '%\_test' THEN
    RAISE EXCEPTION 'reset_test_data: % is not a test scope', p_scope;
  END IF;
  IF p_restart THEN
    PERFORM pg_advisory_xact_lock(726354002);
    PERFORM 1 FROM workspaces WHERE id = p_scope FOR UPDATE;
  END IF;
  -- Children first, so that no foreign key sets a column of a row that is deleted next.
  DELETE FROM messages WHERE workspace_id = p_scope;
  GET DIAGNOSTICS n_messages = ROW_COUNT;
  DELETE FROM tickets WHERE workspace_id = p_scope;
  GET DIAGNOSTICS n_tickets = ROW_COUNT;
  DELETE FROM conversations WHERE workspace_id = p_scope;
  GET DIAGNOSTICS n_conversations = ROW_COUNT;
  DELETE FROM leads WHERE workspace_id = p_scope;
  GET DIAGNOSTICS n_leads = ROW_COUNT;
  DELETE FROM deliveries WHERE workspace_id = p_scope;
  GET DIAGNOSTICS n_deliveries = ROW_COUNT;
  DELETE FROM idempotency_keys WHERE workspace_id = p_scope;
  IF p_restart THEN
    DELETE FROM events WHERE workspace_id = p_scope;
    GET DIAGNOSTICS n_events = ROW_COUNT;
    DELETE FROM event_outbox WHERE workspace_id = p_scope;
    DELETE FROM ticket_counters WHERE workspace_id = p_scope;
    INSERT INTO event_sequences AS s (workspace_id, last_sequence, restarted_at) VALUES (p_scope, 0, now())
    ON CONFLICT ON CONSTRAINT event_sequences_pkey DO UPDATE SET last_sequence = 0, pruned_through = 0, restarted_at = now();
    -- Wakes the scope's followers waiting for an event (the sequencer's channel): they read again and learn of it.
    PERFORM pg_notify('event_stream', p_scope);
  END IF;
  RETURN jsonb_build_object(
    'leads', n_leads, 'conversations', n_conversations, 'messages', n_messages, 'tickets', n_tickets,
    'events', n_events, 'deliveries', n_deliveries
  );
END
$$;
COMMENT ON FUNCTION reset_test_data(text, boolean) IS
  'Deletes a test scope''s objects, deliveries and idempotency keys; with p_restart, under the sequencer''s lock, also its events, and restarts its feed at 1.';
