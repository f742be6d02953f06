/** All SQL of events: the outbox a change writes to, the sequencer's pass, and the reads. */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { findInWorkspace, listPage, type PageParams, rowLimit } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import type { StoredTrace } from "../../lib/trace-context.ts";

export interface EventRow {
  id: string;
  workspace_id: string;
  type: components["schemas"]["EventType"];
  data: Record<string, unknown>;
  created_at: Date;
  /** bigint: pg reads it as text. */
  sequence: string | number;
}

/** A numbered event, the trace of the request that caused it, and the subscriptions it goes to (`sequence_events()`). */
export interface SequencedRow extends EventRow, StoredTrace {
  webhook_ids: string[];
}

export interface EventFilters {
  type?: EventRow["type"];
  created_after?: string;
}

/** A new event as its change's transaction writes it: numbered later, once committed. */
export interface NewEvent {
  id: string;
  workspace_id: string;
  type: EventRow["type"];
  data: object;
  created_at: string;
  trace: StoredTrace;
}

/** Writes events to the outbox in the caller's transaction, in the order given. */
export async function insertOutboxEvents(db: Queryable, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.query({
    name: "insert-outbox-events",
    text: `INSERT INTO event_outbox (id, workspace_id, type, data, created_at, traceparent, tracestate)
           SELECT e.id, e.workspace_id, e.type, e.data::jsonb, e.created_at::timestamptz, e.traceparent, e.tracestate
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                  WITH ORDINALITY AS e(id, workspace_id, type, data, created_at, traceparent, tracestate, n)
            ORDER BY e.n`,
    values: [
      events.map((event) => event.id),
      events.map((event) => event.workspace_id),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify(event.data)),
      events.map((event) => event.created_at),
      events.map((event) => event.trace.traceparent),
      events.map((event) => event.trace.tracestate),
    ],
  });
}

function nullable(value: string | null, literal: (text: string) => string): string {
  return value === null ? "NULL" : literal(value);
}

/**
 * The same insert as parameterless SQL, for a query of several statements (`;`-terminated; "" for no events): values
 * are escaped by the connection's `literal` (pg's escapeLiteral).
 */
export function outboxInsertSql(events: readonly NewEvent[], literal: (text: string) => string): string {
  if (events.length === 0) return "";
  const rows = events.map(
    (event) =>
      `(${literal(event.id)}, ${literal(event.workspace_id)}, ${literal(event.type)}, ${literal(JSON.stringify(event.data))}::jsonb, ${literal(event.created_at)}::timestamptz, ${nullable(event.trace.traceparent, literal)}, ${nullable(event.trace.tracestate, literal)})`,
  );
  return `INSERT INTO event_outbox (id, workspace_id, type, data, created_at, traceparent, tracestate) VALUES ${rows.join(", ")};\n`;
}

/**
 * Begins the sequencer's pass on `db` and runs it: the committed transactions of the first `rows` outbox rows, their
 * events numbered and moved into `events`, ordered by workspace and sequence. The transaction stays open for the caller to
 * add the fan-out and commit. BEGIN, the pass's timeouts and the function go in one round trip (a query of several
 * statements takes no parameters: the numbers are the caller's integers).
 */
export async function sequenceEvents(
  db: Queryable,
  rows: number,
  timeouts: { lockTimeoutMs: number; idleTimeoutMs: number },
): Promise<SequencedRow[]> {
  const results = (await db.query(
    `BEGIN; SET LOCAL lock_timeout = ${Math.trunc(timeouts.lockTimeoutMs)};
     SET LOCAL idle_in_transaction_session_timeout = ${Math.trunc(timeouts.idleTimeoutMs)};
     SELECT * FROM sequence_events(${Math.trunc(rows)})`,
  )) as unknown as pg.QueryResult<SequencedRow>[];
  return results.at(-1)?.rows ?? [];
}

export function listEventRows<Item>(
  db: Queryable,
  workspaceId: string,
  filters: EventFilters,
  page: PageParams,
  toItem: (row: EventRow) => Item,
) {
  return listPage(
    db,
    {
      select: "SELECT * FROM events",
      kind: "event",
      workspaceId,
      filters: [
        ["type = ?", filters.type],
        ["created_at >= ?", filters.created_after],
      ],
    },
    page,
    toItem,
  );
}

/** Up to `limit + 1` events after `after`, oldest first (the extra one tells whether more follow). */
export async function streamRows(
  db: Queryable,
  workspaceId: string,
  after: number,
  limit: number,
  filters: EventFilters,
): Promise<EventRow[]> {
  const { rows } = await db.query<EventRow>({
    name: `stream-events-${rowLimit(limit + 1)}${filters.type ? "-type" : ""}${filters.created_after ? "-since" : ""}`,
    text: `SELECT * FROM events WHERE workspace_id = $1 AND sequence > $2
             ${filters.type ? "AND type = $3" : "AND $3::text IS NULL"}
             ${filters.created_after ? "AND created_at >= $4" : "AND $4::text IS NULL"}
            ORDER BY sequence LIMIT ${rowLimit(limit + 1)}`,
    values: [workspaceId, after, filters.type ?? null, filters.created_after ?? null],
  });
  return rows;
}

/** Where a feed stands: the last sequence given, the last deleted by retention, when it last restarted at 1. */
export interface StreamBounds {
  last: number;
  prunedThrough: number;
  /** When a reset of the test data restarted the feed (RFC 3339); null when it never did. */
  restartedAt: string | null;
}

/** The scope's feed bounds (0, 0 and null before its first event). */
export async function streamBounds(db: Queryable, workspaceId: string): Promise<StreamBounds> {
  const { rows } = await db.query<{ last_sequence: string; pruned_through: string; restarted_at: Date | null }>({
    name: "event-stream-bounds",
    text: "SELECT last_sequence, pruned_through, restarted_at FROM event_sequences WHERE workspace_id = $1",
    values: [workspaceId],
  });
  const row = rows[0];
  return {
    last: Number(row?.last_sequence ?? 0),
    prunedThrough: Number(row?.pruned_through ?? 0),
    restartedAt: row?.restarted_at?.toISOString() ?? null,
  };
}

/**
 * Deletes up to `limit` events created before `before`, oldest first, and records per workspace the last sequence
 * deleted. Event ids begin with their creation time (ULID), so the primary key walks them oldest first. Returns how
 * many it deleted.
 */
export async function deleteEventsBefore(db: Queryable, beforeId: string, limit: number): Promise<number> {
  const { rows } = await db.query<{ deleted: string }>({
    name: "prune-events",
    text: `WITH gone AS (
             DELETE FROM events WHERE id IN (SELECT id FROM events WHERE id < $1 ORDER BY id LIMIT $2)
             RETURNING workspace_id, sequence
           ), marks AS (
             UPDATE event_sequences s SET pruned_through = greatest(s.pruned_through, g.through)
               FROM (SELECT workspace_id, max(sequence) AS through FROM gone GROUP BY workspace_id) g
              WHERE s.workspace_id = g.workspace_id
             RETURNING 1
           )
           SELECT count(*) AS deleted FROM gone`,
    values: [beforeId, limit],
  });
  return Number(rows[0]?.deleted ?? 0);
}

export function findEventRow(db: Queryable, workspaceId: string, id: string): Promise<EventRow> {
  return findInWorkspace<EventRow>(db, "events", workspaceId, id, () => new AppError("EVENT_NOT_FOUND"));
}
