/**
 * Events: the wire shape (the envelope that `/v1/events` lists and webhooks deliver), their reads, and their
 * writing. An event is written in the transaction of the change it describes (no event without its change, no
 * change without its event), with its webhook deliveries: the writes of leads, conversations and tickets are given
 * `eventRecorder(queue)` of webhooks/record.ts as their `RecordEvent` (webhooks import events; events import nothing
 * of theirs).
 */
import type { components } from "@service/spec/schema";
import type { Db } from "../../db/db.ts";
import type { PageParams } from "../../db/pages.ts";
import { newId } from "../../lib/ids.ts";
import type { EventFilters, EventRow } from "./events.store.ts";
import * as store from "./events.store.ts";

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
 * A new event's envelope. Its id and its time come from one reading of the clock here, not from the database, so
 * that the envelope, which each delivery sends as its body, is complete before its row is written.
 */
export function newEvent(workspaceId: string, type: EventType, data: object, now = Date.now()): Event {
  return toEvent({
    id: newId("event", now),
    workspace_id: workspaceId,
    type,
    data: data as EventRow["data"],
    created_at: new Date(now),
  });
}

export function listEvents(db: Db, workspaceId: string, query: EventFilters & PageParams) {
  return store.listEventRows(db, workspaceId, query, query, toEvent);
}

export async function getEvent(db: Db, workspaceId: string, id: string): Promise<Event> {
  return toEvent(await store.findEventRow(db, workspaceId, id));
}
