-- The change stream: every change is an event with a `sequence` per workspace, in commit order and without gaps, and
-- every object has a `version` (docs/decisions/0010-change-stream-sequence.md).

-- 1 at creation, one more at each change that changes something.
ALTER TABLE leads ADD COLUMN version integer NOT NULL DEFAULT 1;
ALTER TABLE conversations ADD COLUMN version integer NOT NULL DEFAULT 1;
ALTER TABLE messages ADD COLUMN version integer NOT NULL DEFAULT 1;
ALTER TABLE tickets ADD COLUMN version integer NOT NULL DEFAULT 1;

-- A change's transaction writes its events here, not into `events`: a number taken inside a transaction is not in
-- commit order (a transaction that takes 5 can commit after the one that takes 6, and a consumer that read 6 never
-- sees 5). The sequencer (sequence_events() below) moves committed rows into `events`, numbered. `serial` is the order
-- of insertion, `txid` groups one transaction's events so that they stay consecutive.
CREATE TABLE event_outbox (
  serial       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  txid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  id           text NOT NULL,
  workspace_id text NOT NULL,
  type         text NOT NULL,
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL
);
-- A pass takes whole transactions: the rows of each transaction it picked.
CREATE INDEX event_outbox_txid ON event_outbox (txid);

-- Per workspace: the last sequence given, and the last one deleted by retention (a position before it has a gap that
-- no read can fill).
CREATE TABLE event_sequences (
  workspace_id   text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  last_sequence  bigint NOT NULL,
  pruned_through bigint NOT NULL DEFAULT 0
);

-- The events written so far are numbered in the order of their ids (their creation time).
ALTER TABLE events ADD COLUMN sequence bigint;
UPDATE events SET sequence = numbered.n
  FROM (SELECT id, row_number() OVER (PARTITION BY workspace_id ORDER BY id) AS n FROM events) AS numbered
 WHERE events.id = numbered.id;
INSERT INTO event_sequences (workspace_id, last_sequence)
SELECT workspace_id, max(sequence) FROM events GROUP BY workspace_id;
ALTER TABLE events ALTER COLUMN sequence SET NOT NULL;
CREATE UNIQUE INDEX events_stream ON events (workspace_id, sequence);
CREATE INDEX events_type_stream ON events (workspace_id, type, sequence);

-- One pass of the sequencer, in the caller's transaction: takes the committed transactions of the first p_rows rows of
-- the outbox (in the order of insertion, by the primary key, so that the rows earlier passes deleted cost an index
-- walk, not a scan of the table; a transaction's events are never split between passes), numbers their events per
-- workspace and writes them into `events`. Returns them, each with the enabled subscriptions of its workspace that
-- chose its type (the caller writes their deliveries).
--
-- Order: transactions by the last event each inserted, events within one by insertion. A transaction that waited for
-- another's row lock inserted its events after the other committed, so it comes later; transactions that touched
-- nothing in common may come in either order within one pass, which no reader can tell apart (the pass makes them
-- visible at once). Between passes the order is the order of commit: a pass sees only what committed before it.
--
-- Passes are serialised by a transaction-scoped advisory lock, so two never number the same workspace at once; the
-- statement after the lock takes its snapshot after the lock is granted, so it sees every pass before it.
CREATE FUNCTION sequence_events(p_rows integer)
RETURNS TABLE (
  id text, workspace_id text, type text, data jsonb, created_at timestamptz, sequence bigint, webhook_ids text[]
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
  PERFORM pg_advisory_xact_lock(726354002);
  RETURN QUERY
  WITH picked AS (
    SELECT DISTINCT w.txid FROM (SELECT o.txid FROM event_outbox o ORDER BY o.serial LIMIT p_rows) w
  ), taken AS (
    DELETE FROM event_outbox o USING picked p WHERE o.txid = p.txid
    RETURNING o.serial, o.txid, o.id, o.workspace_id, o.type, o.data, o.created_at
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
    INSERT INTO events (id, workspace_id, type, data, created_at, sequence)
    SELECT nb.id, nb.workspace_id, nb.type, nb.data, nb.created_at, k.last_sequence - nb.c + nb.n
      FROM numbered nb JOIN counters k ON k.workspace_id = nb.workspace_id
    RETURNING events.id, events.workspace_id, events.type, events.data, events.created_at, events.sequence
  )
  SELECT w.id, w.workspace_id, w.type, w.data, w.created_at, w.sequence,
         ARRAY(SELECT h.id FROM webhooks h
                WHERE h.workspace_id = w.workspace_id AND h.enabled AND w.type = ANY (h.events)
                ORDER BY h.id)
    FROM written w
   ORDER BY w.workspace_id, w.sequence;
END
$$;

-- Deliveries are made by the sequencer now, with the event's sequence in their body; a process of the previous version
-- still running during the upgrade fails loudly here rather than writing events that no pass would number.
DROP FUNCTION record_event_deliveries(text, text, text, jsonb, timestamptz, text);
