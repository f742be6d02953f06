/** All SQL of tickets and their per-workspace numbers. Every statement is scoped to a workspace. */
import type { components } from "@service/spec/schema";
import { lockMatchKeys } from "../../db/match-locks.ts";
import { findInWorkspace, isUniqueViolation, listPage, type PageParams, updateRow } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";

type Ticket = components["schemas"]["Ticket"];

export interface TicketRow {
  id: string;
  /** The scope: the workspace's, or its test scope's (domain/modes.ts). */
  workspace_id: string;
  number: number;
  subject: string;
  description: string | null;
  status: Ticket["status"];
  priority: Ticket["priority"];
  lead_id: string | null;
  conversation_id: string | null;
  assignee: string | null;
  tags: string[];
  due_at: Date | null;
  solved_at: Date | null;
  closed_at: Date | null;
  external_id: string | null;
  custom_attributes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  version: number;
}

/** The columns of a ticket that a change can touch; `ticket.updated` names its changed fields after them. */
export const TICKET_FIELDS = [
  "subject",
  "description",
  "status",
  "priority",
  "lead_id",
  "conversation_id",
  "assignee",
  "tags",
  "due_at",
  "solved_at",
  "closed_at",
  "external_id",
  "custom_attributes",
] as const;

export type TicketField = (typeof TICKET_FIELDS)[number];

/** Values of those columns as a write sets them (timestamps as ISO text, tags de-duplicated). */
export interface TicketChanges {
  subject?: string;
  description?: string | null;
  status?: TicketRow["status"];
  priority?: TicketRow["priority"];
  lead_id?: string | null;
  conversation_id?: string | null;
  assignee?: string | null;
  tags?: string[];
  due_at?: string | null;
  solved_at?: string | null;
  closed_at?: string | null;
  external_id?: string | null;
  custom_attributes?: Record<string, unknown>;
}

export interface TicketFilters {
  status?: TicketRow["status"];
  priority?: TicketRow["priority"];
  lead_id?: string;
  assignee?: string;
  external_id?: string;
  created_after?: string;
  updated_after?: string;
}

const ticketNotFound = (id: string) =>
  new AppError("TICKET_NOT_FOUND", { detail: `No ticket ${id} in this workspace.` });

/** The unique external_id as its 409, any other failure as it is. */
function externalIdTaken(error: unknown): never {
  if (isUniqueViolation(error, "tickets_external_id")) {
    throw new AppError("EXTERNAL_ID_TAKEN", {
      detail: "Another ticket in this workspace has this external_id.",
      cause: error,
    });
  }
  throw error;
}

export function listTicketRows<Item>(
  db: Queryable,
  workspaceId: string,
  filters: TicketFilters,
  page: PageParams,
  toItem: (row: TicketRow) => Item,
) {
  return listPage(
    db,
    {
      select: "SELECT * FROM tickets",
      kind: "ticket",
      workspaceId,
      filters: [
        ["status = ?", filters.status],
        ["priority = ?", filters.priority],
        ["lead_id = ?", filters.lead_id],
        ["assignee = ?", filters.assignee],
        ["external_id = ?", filters.external_id],
        ["created_at >= ?", filters.created_after],
        ["updated_at >= ?", filters.updated_after],
      ],
    },
    page,
    toItem,
  );
}

export function findTicketRow(db: Queryable, workspaceId: string, id: string): Promise<TicketRow> {
  return findInWorkspace<TicketRow>(db, "tickets", workspaceId, id, () => ticketNotFound(id));
}

/**
 * The tickets whose `external_id` is one of `externalIds`, locked until the transaction ends (a batch matches them),
 * after the match locks of `externalIds` (db/match-locks.ts), as a lead batch's.
 */
export async function lockTicketRowsByExternalId(
  db: Queryable,
  workspaceId: string,
  externalIds: readonly string[],
): Promise<TicketRow[]> {
  await lockMatchKeys(db, { kind: "ticket", workspaceId, field: "external_id", normal: "exact" }, externalIds);
  const { rows } = await db.query<TicketRow>({
    text: `SELECT * FROM tickets WHERE workspace_id = $1 AND external_id IS NOT NULL AND external_id = ANY($2::text[])
            ORDER BY external_id FOR UPDATE`,
    values: [workspaceId, externalIds],
  });
  return rows;
}

/** The row, locked until the transaction ends: a change compares with it and records its previous values. */
export function lockTicketRow(db: Queryable, workspaceId: string, id: string): Promise<TicketRow> {
  return findInWorkspace<TicketRow>(db, "tickets", workspaceId, id, () => ticketNotFound(id), { forUpdate: true });
}

/**
 * The workspace's next ticket number. The counter row's lock serialises concurrent creations until the transaction
 * ends, and a rolled-back creation gives its number back: numbers have no gaps.
 */
export async function nextTicketNumber(db: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{ last_number: number }>(
    `INSERT INTO ticket_counters (workspace_id, last_number) VALUES ($1, 1)
     ON CONFLICT (workspace_id) DO UPDATE SET last_number = ticket_counters.last_number + 1
     RETURNING last_number`,
    [workspaceId],
  );
  if (!rows[0]) throw new Error("the ticket counter returned no row");
  return rows[0].last_number;
}

/** A new ticket; `solved_at` or `closed_at` is stamped when it is created in that status. */
export async function insertTicketRow(
  db: Queryable,
  workspaceId: string,
  number: number,
  values: Required<Omit<TicketChanges, "solved_at" | "closed_at">>,
): Promise<TicketRow> {
  try {
    const { rows } = await db.query<TicketRow>(
      `INSERT INTO tickets (id, workspace_id, number, subject, description, status, priority, lead_id, conversation_id,
                            assignee, tags, due_at, external_id, custom_attributes, solved_at, closed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
               CASE WHEN $6 = 'solved' THEN now() END, CASE WHEN $6 = 'closed' THEN now() END)
       RETURNING *`,
      [
        newId("ticket"),
        workspaceId,
        number,
        values.subject,
        values.description,
        values.status,
        values.priority,
        values.lead_id,
        values.conversation_id,
        values.assignee,
        values.tags,
        values.due_at,
        values.external_id,
        JSON.stringify(values.custom_attributes),
      ],
    );
    return rows[0] as TicketRow;
  } catch (error) {
    externalIdTaken(error);
  }
}

/** Writes the named `fields` of `changes` (only those: the service names the fields that really change). */
export async function updateTicketRow(
  db: Queryable,
  workspaceId: string,
  id: string,
  changes: TicketChanges,
  fields: readonly TicketField[],
): Promise<TicketRow> {
  let row: TicketRow | undefined;
  try {
    row = await updateRow<TicketRow>(db, "tickets", workspaceId, id, { ...changes }, fields, { versioned: true });
  } catch (error) {
    externalIdTaken(error);
  }
  if (!row) throw ticketNotFound(id);
  return row;
}

/** Takes a deleted lead off its tickets (leads/lead-deletion.ts); returns them as stored, by id. */
export async function detachLeadRows(db: Queryable, workspaceId: string, leadId: string): Promise<TicketRow[]> {
  const { rows } = await db.query<TicketRow>(
    `UPDATE tickets SET lead_id = NULL, updated_at = now(), version = version + 1
      WHERE workspace_id = $1 AND lead_id = $2 RETURNING *`,
    [workspaceId, leadId],
  );
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}
