/** All SQL of events. */
import type { components } from "@service/spec/schema";
import type { Db } from "../../db/db.ts";
import { findInWorkspace, listPage, type PageParams } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";

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
