/**
 * Tickets, numbered per workspace without gaps. Creating one and every change record `ticket.updated` with the
 * changed field names and their previous values, in the same transaction.
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { fetchPage, updateRow } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, toPage } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import { requireLead } from "../conversations/conversations.ts";
import type { RecordEvent } from "../events/events.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Ticket = components["schemas"]["Ticket"];
export type TicketCreate = components["schemas"]["TicketCreate"];
export type TicketUpdate = components["schemas"]["TicketUpdate"];
type Status = Ticket["status"];

const TICKET_ID = /^tkt_[0-9A-HJKMNP-TV-Z]{26}$/;
/** The fields of a ticket that a change can touch, as the event names them. */
const FIELDS = [
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
] as const;

/** Legal status moves (spec/models/tickets.tsp): nothing returns to `new`, and `closed` is final. */
export const TICKET_TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  new: ["open", "pending", "on_hold", "solved", "closed"],
  open: ["pending", "on_hold", "solved", "closed"],
  pending: ["open", "on_hold", "solved", "closed"],
  on_hold: ["open", "pending", "solved", "closed"],
  solved: ["open", "closed"],
  closed: [],
};

interface TicketRow {
  id: string;
  number: number;
  subject: string;
  description: string | null;
  status: Status;
  priority: Ticket["priority"];
  lead_id: string | null;
  conversation_id: string | null;
  assignee: string | null;
  tags: string[];
  due_at: Date | null;
  solved_at: Date | null;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toTicket(row: TicketRow): Ticket {
  return {
    id: row.id,
    object: "ticket",
    number: row.number,
    subject: row.subject,
    description: row.description,
    status: row.status,
    priority: row.priority,
    lead_id: row.lead_id,
    conversation_id: row.conversation_id,
    assignee: row.assignee,
    tags: row.tags,
    due_at: iso(row.due_at),
    solved_at: iso(row.solved_at),
    closed_at: iso(row.closed_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function requireConversation(db: Db, workspaceId: string, id: string | null | undefined): Promise<void> {
  if (!id) return;
  const { rowCount } = await db.query("SELECT 1 FROM conversations WHERE workspace_id = $1 AND id = $2", [
    workspaceId,
    id,
  ]);
  if (!rowCount) throw new AppError("CONVERSATION_NOT_FOUND", { detail: `No conversation ${id} in this workspace.` });
}

export async function listTickets(
  db: Db,
  workspaceId: string,
  query: {
    limit?: number;
    cursor?: string;
    status?: Status;
    priority?: Ticket["priority"];
    lead_id?: string;
    assignee?: string;
    created_after?: string;
    updated_after?: string;
  },
) {
  const limit = query.limit ?? 20;
  const rows = await fetchPage<TicketRow>(db, {
    select: "SELECT * FROM tickets",
    workspaceId,
    filters: [
      ["status = ?", query.status],
      ["priority = ?", query.priority],
      ["lead_id = ?", query.lead_id],
      ["assignee = ?", query.assignee],
      ["created_at >= ?", query.created_after],
      ["updated_at >= ?", query.updated_after],
    ],
    limit,
    after: decodeCursor(query.cursor, TICKET_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toTicket) };
}

export async function getTicket(db: Db, workspaceId: string, id: string, forUpdate = false): Promise<TicketRow> {
  const { rows } = await db.query<TicketRow>(
    `SELECT * FROM tickets WHERE workspace_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`,
    [workspaceId, id],
  );
  if (!rows[0]) throw new AppError("TICKET_NOT_FOUND", { detail: `No ticket ${id} in this workspace.` });
  return rows[0];
}

export async function createTicket(
  db: Db,
  workspaceId: string,
  input: TicketCreate,
  record: RecordEvent,
): Promise<Ticket> {
  await requireLead(db, workspaceId, input.lead_id);
  await requireConversation(db, workspaceId, input.conversation_id);
  // The counter row's lock serialises concurrent creations; a rolled-back creation gives its number back.
  const { rows: counter } = await db.query<{ last_number: number }>(
    `INSERT INTO ticket_counters (workspace_id, last_number) VALUES ($1, 1)
     ON CONFLICT (workspace_id) DO UPDATE SET last_number = ticket_counters.last_number + 1
     RETURNING last_number`,
    [workspaceId],
  );
  const status = input.status ?? "new";
  const { rows } = await db.query<TicketRow>(
    `INSERT INTO tickets (id, workspace_id, number, subject, description, status, priority, lead_id, conversation_id,
                          assignee, tags, due_at, solved_at, closed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
             CASE WHEN $6 = 'solved' THEN now() END, CASE WHEN $6 = 'closed' THEN now() END)
     RETURNING *`,
    [
      newId("ticket"),
      workspaceId,
      counter[0]?.last_number,
      input.subject,
      input.description ?? null,
      status,
      input.priority ?? "normal",
      input.lead_id ?? null,
      input.conversation_id ?? null,
      input.assignee ?? null,
      [...new Set(input.tags ?? [])],
      input.due_at ?? null,
    ],
  );
  const ticket = toTicket(rows[0] as TicketRow);
  const changed = FIELDS.filter((field) => {
    const value = ticket[field];
    return value !== null && !(Array.isArray(value) && value.length === 0);
  });
  await record(db, workspaceId, "ticket.updated", {
    object: ticket,
    changed_fields: changed,
    previous_attributes: {},
  });
  return ticket;
}

/** Applies a change; records `ticket.updated` only when something actually changed. */
export async function updateTicket(
  db: Db,
  workspaceId: string,
  id: string,
  patch: TicketUpdate,
  record: RecordEvent,
): Promise<Ticket> {
  const currentRow = await getTicket(db, workspaceId, id, true);
  const current = toTicket(currentRow);
  const changes: Record<string, unknown> = { ...patch };
  if (patch.tags) changes.tags = [...new Set(patch.tags)];
  if (patch.lead_id) await requireLead(db, workspaceId, patch.lead_id);
  if (patch.conversation_id) await requireConversation(db, workspaceId, patch.conversation_id);
  if (patch.status && patch.status !== current.status) {
    if (!TICKET_TRANSITIONS[current.status].includes(patch.status)) {
      const allowed = TICKET_TRANSITIONS[current.status];
      throw new AppError("INVALID_STATE_TRANSITION", {
        detail: `A ${current.status} ticket cannot become ${patch.status}; ${allowed.length ? `allowed: ${allowed.join(", ")}` : "closed is final"}.`,
      });
    }
    const now = new Date().toISOString();
    if (patch.status === "solved") changes.solved_at = now;
    if (patch.status === "closed") changes.closed_at = now;
    if (patch.status === "open" && current.status === "solved") changes.solved_at = null;
  }
  const changed = FIELDS.filter(
    (field) => field in changes && JSON.stringify(asWire(field, changes[field])) !== JSON.stringify(current[field]),
  );
  if (changed.length === 0) return current;
  const row = await updateRow<TicketRow>(
    db,
    "tickets",
    workspaceId,
    id,
    Object.fromEntries(changed.map((field) => [field, changes[field]])),
    FIELDS,
  );
  const ticket = toTicket(row as TicketRow);
  await record(db, workspaceId, "ticket.updated", {
    object: ticket,
    changed_fields: changed,
    previous_attributes: Object.fromEntries(changed.map((field) => [field, current[field]])),
  });
  return ticket;
}

const TIMESTAMPS = new Set(["due_at", "solved_at", "closed_at"]);

/** A patch value as the wire shows it (timestamps in the API's ISO form), to compare with the current ticket. */
function asWire(field: string, value: unknown): unknown {
  if (TIMESTAMPS.has(field) && typeof value === "string") return new Date(value).toISOString();
  return value ?? null;
}
