/**
 * Events: written in the transaction of the change they describe (no event without its change, no change without
 * its event), listed and read through `/v1/events`, and delivered by webhooks (which import this module; it imports
 * nothing of theirs).
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { fetchPage } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, toPage } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Event = components["schemas"]["Event"];
export type EventType = components["schemas"]["EventType"];

export const API_VERSION = "1.0";
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

interface EventRow {
  id: string;
  workspace_id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: Date;
}

export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    timestamp: row.created_at.toISOString(),
    api_version: API_VERSION,
    workspace_id: row.workspace_id,
    data: row.data,
  } as Event;
}

/**
 * Records an event in the caller's transaction, with its webhook deliveries; returns the event's id. Writes are given
 * `recordEvent` of webhooks/record.ts.
 */
export type RecordEvent = (db: Db, workspaceId: string, type: EventType, data: object) => Promise<string>;

/** Writes the event row in the caller's transaction and returns its envelope. */
export async function insertEvent(db: Db, workspaceId: string, type: EventType, data: object): Promise<Event> {
  const { rows } = await db.query<EventRow>({
    name: "insert-event",
    text: "INSERT INTO events (id, workspace_id, type, data) VALUES ($1, $2, $3, $4) RETURNING *",
    values: [newId("event"), workspaceId, type, JSON.stringify(data)],
  });
  return toEvent(rows[0] as EventRow);
}

export async function listEvents(
  db: Db,
  workspaceId: string,
  query: { limit?: number; cursor?: string; type?: EventType; created_after?: string },
) {
  const limit = query.limit ?? 20;
  const rows = await fetchPage<EventRow>(db, {
    select: "SELECT * FROM events",
    workspaceId,
    filters: [
      ["type = ?", query.type],
      ["created_at >= ?", query.created_after],
    ],
    limit,
    after: decodeCursor(query.cursor, EVENT_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toEvent) };
}

export async function getEvent(db: Db, workspaceId: string, id: string): Promise<Event> {
  const { rows } = await db.query<EventRow>("SELECT * FROM events WHERE workspace_id = $1 AND id = $2", [
    workspaceId,
    id,
  ]);
  if (!rows[0]) throw new AppError("EVENT_NOT_FOUND");
  return toEvent(rows[0]);
}
