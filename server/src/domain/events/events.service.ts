/**
 * Events: the wire shape (the envelope that `/v1/events` lists and webhooks deliver), their reads, and their
 * writing. An event is written in the transaction of the change it describes (no event without its change, no
 * change without its event), with its webhook deliveries: the writes of leads, conversations and tickets are given
 * `recordEvent` of webhooks/record.ts as their `RecordEvent` (webhooks import events; events import nothing of
 * theirs).
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import type { PageParams } from "../../db/pages.ts";
import type { AlongsideEvent, EventFilters, EventRow } from "./events.store.ts";
import * as store from "./events.store.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Event = components["schemas"]["Event"];
export type EventType = components["schemas"]["EventType"];

const API_VERSION = "1.0";

export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    timestamp: row.created_at.toISOString(),
    api_version: API_VERSION,
    workspace_id: row.workspace_id,
    data: row.data,
    // The contract's Event is a union keyed by `type`, each with its own `data`. The row's data was recorded with
    // its type (RecordEvent), so the pair matches; the column's JSON cannot say so to the compiler.
  } as Event;
}

/** Records an event in the caller's transaction, with its webhook deliveries; returns the event's id. */
export type RecordEvent = (db: Db, workspaceId: string, type: EventType, data: object) => Promise<string>;

/**
 * Writes the event in the caller's transaction and returns its envelope, with the columns of a query that travelled
 * with the write (`AlongsideEvent`) when one was given.
 */
export async function insertEvent<Extra extends object = object>(
  db: Db,
  workspaceId: string,
  type: EventType,
  data: object,
  alongside?: AlongsideEvent,
): Promise<{ event: Event; alongside: Extra }> {
  const row = await store.insertEventRow<Extra>(db, workspaceId, type, data, alongside);
  return { event: toEvent(row), alongside: row };
}

export function listEvents(db: Db, workspaceId: string, query: EventFilters & PageParams) {
  return store.listEventRows(db, workspaceId, query, query, toEvent);
}

export async function getEvent(db: Db, workspaceId: string, id: string): Promise<Event> {
  return toEvent(await store.findEventRow(db, workspaceId, id));
}
