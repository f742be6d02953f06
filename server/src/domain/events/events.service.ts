/**
 * Events: the wire shape (the envelope that `/v1/events` lists and webhooks deliver), their reads, and their
 * writing. A change writes its events to the outbox in its own transaction (no event without its change, no change
 * without its event); the sequencer (sequencer.ts) numbers them once committed and moves them into `events`, and its
 * pass makes their webhook deliveries (webhooks/fan-out.ts: webhooks import events; events import nothing of theirs).
 */
import type { components } from "@service/spec/schema";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { type StoredTrace, storedTrace, type TraceContext } from "../../lib/trace-context.ts";
import { isLiveScope, workspaceOfScope } from "../modes.ts";
import type { EventFilters, EventRow, NewEvent } from "./events.store.ts";
import * as store from "./events.store.ts";

export type Event = components["schemas"]["Event"];
export type EventType = components["schemas"]["EventType"];

const API_VERSION = "1.0";
const DEFAULT_PAGE_SIZE = 20;

export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    object: "event",
    livemode: isLiveScope(row.workspace_id),
    type: row.type,
    sequence: Number(row.sequence),
    timestamp: row.created_at.toISOString(),
    api_version: API_VERSION,
    workspace_id: workspaceOfScope(row.workspace_id),
    data: row.data,
    // The contract's Event is a union keyed by `type`, each with its own `data`. The row's data was recorded with
    // its type (RecordEvent), so the pair matches; the column's JSON cannot say so to the compiler.
  } as Event;
}

/** Records an event in the caller's transaction (numbered once it commits); returns the event's id. */
export type RecordEvent = (db: Queryable, workspaceId: string, type: EventType, data: object) => Promise<string>;

/** One event of a change, for `recordEvents`. */
export interface Change {
  type: EventType;
  data: object;
}

/**
 * A new event as its change writes it. Its id and its time come from one reading of the clock here: the id orders
 * events by creation, and retention deletes by it.
 */
function newEvent(workspaceId: string, type: EventType, data: object, now = Date.now(), trace = NO_TRACE): NewEvent {
  return {
    id: newId("event", now),
    workspace_id: workspaceId,
    type,
    data,
    created_at: new Date(now).toISOString(),
    trace,
  };
}

const NO_TRACE: StoredTrace = { traceparent: null, tracestate: null };

/**
 * The envelope of a test event (`POST …/webhooks/{id}/test`): shaped as a real one, not stored, and outside the stream
 * (`sequence` 0), so that a receiver's gap check never counts it.
 */
export function testEvent(workspaceId: string, type: EventType, data: object): Event {
  const event = newEvent(workspaceId, type, data);
  return toEvent({
    ...event,
    data: event.data as EventRow["data"],
    created_at: new Date(event.created_at),
    sequence: 0,
  });
}

/**
 * The events of the transactions that `write()` runs, kept until their COMMIT (`deferredEventsSql`): written then, after
 * every change of the transaction, in the COMMIT's round trip. A transaction's events are then the last rows it
 * inserts, so the sequencer orders transactions by their events (migration 0010's note), and a write costs no round
 * trip for them.
 */
const deferred = new WeakMap<object, { events: NewEvent[]; trace: StoredTrace }>();

/**
 * From now on, the events recorded on `client` wait for its COMMIT (`deferredEventsSql`), and keep `trace`: the
 * context of the request that causes them.
 */
export function deferEvents(client: object, trace: TraceContext | undefined): void {
  deferred.set(client, { events: [], trace: storedTrace(trace) });
}

/** The statement that writes the events recorded on `client` since `deferEvents` ("" when none); ends the deferral. */
export function deferredEventsSql(client: { escapeLiteral(text: string): string }): string {
  const events = deferred.get(client)?.events ?? [];
  deferred.delete(client);
  return store.outboxInsertSql(events, (text) => client.escapeLiteral(text));
}

/** How many events wait on `client` for its COMMIT: a mark to go back to with `dropEventsAfter`. */
export function eventsMark(client: object): number {
  return deferred.get(client)?.events.length ?? 0;
}

/** Forgets the events recorded on `client` after `mark`: their change was rolled back to a savepoint. */
export function dropEventsAfter(client: object, mark: number): void {
  deferred.get(client)?.events.splice(mark);
}

/** Writes the events of one change to the outbox, in the caller's transaction and in this order. */
export async function recordEvents(db: Queryable, workspaceId: string, changes: readonly Change[]): Promise<string[]> {
  const now = Date.now();
  const waiting = deferred.get(db);
  const events = changes.map((change) => newEvent(workspaceId, change.type, change.data, now, waiting?.trace));
  if (waiting) waiting.events.push(...events);
  else await store.insertOutboxEvents(db, events);
  return events.map((event) => event.id);
}

/**
 * @example
 * await recordEvent(client, workspaceId, "lead.captured", { object: lead }); // "evt_01JD…"
 */
export const recordEvent: RecordEvent = async (db, workspaceId, type, data) => {
  const [id] = await recordEvents(db, workspaceId, [{ type, data }]);
  return id as string;
};

export async function listEvents(db: Queryable, workspaceId: string, query: EventFilters & PageParams) {
  const page = await store.listEventRows(db, workspaceId, query, query, toEvent);
  return { ...page, restarted_at: await restartedAt(db, workspaceId) };
}

/** When the scope's feed last restarted at 1: never for live mode, whose feed no reset touches (no query then). */
async function restartedAt(db: Queryable, workspaceId: string): Promise<string | null> {
  return isLiveScope(workspaceId) ? null : (await store.streamBounds(db, workspaceId)).restartedAt;
}

export interface StreamQuery extends EventFilters {
  after_sequence: number;
  limit?: number;
}

/**
 * The events after `after_sequence`, oldest first. 0 starts at the oldest kept; a position whose next event was
 * deleted by retention is a 410 `EVENTS_EXPIRED` saying where the kept window starts (the consumer has a gap it can
 * only fill by rebuilding), and one past the newest event a 400 (it is not a position this workspace gave), or a 410
 * `EVENTS_RESET` when the feed restarted at 1 since (a reset of the test data: the position counted the old feed).
 */
export async function listStream(db: Queryable, workspaceId: string, query: StreamQuery) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await store.streamRows(db, workspaceId, query.after_sequence, limit, query);
  const after = query.after_sequence;
  // A filtered stream skips sequences of other types; only an unfiltered one can tell a gap from retention here.
  const suspect = after > 0 && (rows.length === 0 || Number(rows[0]?.sequence) > after + 1);
  const bounds = suspect ? await checkPosition(db, workspaceId, after) : undefined;
  const has_more = rows.length > limit;
  return {
    object: "list" as const,
    data: rows.slice(0, limit).map(toEvent),
    has_more,
    next_cursor: null,
    // The bounds read for the position say it too: one read of them per page at most.
    restarted_at: bounds ? bounds.restartedAt : await restartedAt(db, workspaceId),
  };
}

/** Throws the problem of a position the feed cannot continue from; returns the bounds it read. */
async function checkPosition(db: Queryable, workspaceId: string, after: number): Promise<store.StreamBounds> {
  const bounds = await store.streamBounds(db, workspaceId);
  const { last, prunedThrough, restartedAt } = bounds;
  if (after < prunedThrough) {
    throw new AppError("EVENTS_EXPIRED", {
      detail: `The events after sequence ${after} up to ${prunedThrough} are older than 30 days and deleted; the oldest kept is ${prunedThrough + 1}.`,
      oldestSequence: prunedThrough + 1,
    });
  }
  if (after > last && restartedAt) {
    throw new AppError("EVENTS_RESET", {
      detail: `The test data was reset at ${restartedAt}: the test feed restarted at 1 and its newest event is ${last}. Follow again from after_sequence=0.`,
    });
  }
  if (after > last) {
    throw new AppError("VALIDATION_FAILED", {
      errors: [{ path: "query.after_sequence", message: `is past the newest event of this workspace (${last})` }],
    });
  }
  return bounds;
}

export async function getEvent(db: Queryable, workspaceId: string, id: string): Promise<Event> {
  return toEvent(await store.findEventRow(db, workspaceId, id));
}
