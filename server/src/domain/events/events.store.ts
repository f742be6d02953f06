/** All SQL of events. */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { findInWorkspace, listPage, type PageParams } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";

type Db = Pick<pg.PoolClient, "query">;

export interface EventRow {
  id: string;
  workspace_id: string;
  type: components["schemas"]["EventType"];
  data: Record<string, unknown>;
  created_at: Date;
}

export interface EventFilters {
  type?: EventRow["type"];
  created_after?: string;
}

export function listEventRows<Item>(
  db: Db,
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

export function findEventRow(db: Db, workspaceId: string, id: string): Promise<EventRow> {
  return findInWorkspace<EventRow>(db, "events", workspaceId, id, () => new AppError("EVENT_NOT_FOUND"));
}

/**
 * A query about the new row (named `event`) that travels in the statement that writes it, its columns returned beside
 * the row's: a caller that needs more than the row pays one round trip, not two.
 */
export interface AlongsideEvent {
  /** Distinguishes the prepared statement. */
  name: string;
  /** Select-list items over `event`, e.g. `ARRAY(SELECT … WHERE x = event.type) AS y`. */
  columns: string;
}

/** Writes an event row in the caller's transaction, with `alongside`'s columns when given. */
export async function insertEventRow<Extra extends object = object>(
  db: Db,
  workspaceId: string,
  type: EventRow["type"],
  data: object,
  alongside?: AlongsideEvent,
): Promise<EventRow & Extra> {
  const insert = "INSERT INTO events (id, workspace_id, type, data) VALUES ($1, $2, $3, $4) RETURNING *";
  const { rows } = await db.query<EventRow & Extra>({
    name: alongside ? `insert-event-${alongside.name}` : "insert-event",
    text: alongside ? `WITH event AS (${insert}) SELECT event.*, ${alongside.columns} FROM event` : insert,
    values: [newId("event"), workspaceId, type, JSON.stringify(data)],
  });
  return rows[0] as EventRow & Extra;
}
