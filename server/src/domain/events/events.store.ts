/** All SQL of events. */
import type { components } from "@service/spec/schema";
import pg from "pg";
import { findInWorkspace, listPage, type PageParams } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";

type Db = Pick<pg.PoolClient, "query">;
type Event = components["schemas"]["Event"];

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
 * The statement that writes an event's row, as text with its values as literals (it travels in a query of several
 * statements, which takes no parameters); it returns the row's `id`, `workspace_id` and `type`.
 */
export function insertEventStatement(event: Pick<Event, "id" | "workspace_id" | "type" | "data" | "timestamp">) {
  const values = [event.id, event.workspace_id, event.type, JSON.stringify(event.data), event.timestamp];
  const [id, workspaceId, type, data, createdAt] = values.map((value) => pg.escapeLiteral(value));
  return `INSERT INTO events (id, workspace_id, type, data, created_at)
    VALUES (${id}, ${workspaceId}, ${type}, ${data}::jsonb, ${createdAt}::timestamptz)
    RETURNING id, workspace_id, type`;
}
