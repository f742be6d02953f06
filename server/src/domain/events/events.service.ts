/**
 * Events: the wire shape (the envelope that `/v1/events` lists and webhooks deliver) and their reads. An event is
 * written in the transaction of the change it describes (`events.ts`).
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import type { PageParams } from "../../db/pages.ts";
import type { EventFilters, EventRow } from "./events.store.ts";
import * as store from "./events.store.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Event = components["schemas"]["Event"];
export type EventType = components["schemas"]["EventType"];

export const API_VERSION = "1.0";

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

export function listEvents(db: Db, workspaceId: string, query: EventFilters & PageParams) {
  return store.listEventRows(db, workspaceId, query, query, toEvent);
}

export async function getEvent(db: Db, workspaceId: string, id: string): Promise<Event> {
  return toEvent(await store.findEventRow(db, workspaceId, id));
}
