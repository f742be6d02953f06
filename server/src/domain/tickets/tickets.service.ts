/**
 * Tickets, numbered per workspace without gaps: the wire shape and the rules of a write. Creating one and every
 * real change record `ticket.updated` with the changed field names and their previous values, in the write's
 * transaction.
 */

import { isDeepStrictEqual } from "node:util";
import type { components } from "@service/spec/schema";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { wireInstant } from "../../lib/date-time.ts";
import { checkCustomAttributes } from "../attribute-definitions/attribute-definitions.service.ts";
import { requireConversation } from "../conversations/conversations.service.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { requireLead } from "../leads/leads.service.ts";
import { isLiveScope } from "../modes.ts";
import type { Precondition } from "../preconditions.ts";
import type { TicketChanges, TicketField, TicketFilters, TicketRow } from "./tickets.store.ts";
import * as store from "./tickets.store.ts";
import { TICKET_FIELDS } from "./tickets.store.ts";

export type Ticket = components["schemas"]["Ticket"];
type TicketCreate = components["schemas"]["TicketCreate"];
type TicketUpdate = components["schemas"]["TicketUpdate"];
type Status = Ticket["status"];

/** Legal status moves (spec/models/tickets.tsp): nothing returns to `new`, and `closed` is final. */
export const TICKET_TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  new: ["open", "pending", "on_hold", "solved", "closed"],
  open: ["pending", "on_hold", "solved", "closed"],
  pending: ["open", "on_hold", "solved", "closed"],
  on_hold: ["open", "pending", "solved", "closed"],
  solved: ["open", "closed"],
  closed: [],
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toTicket(row: TicketRow): Ticket {
  return {
    id: row.id,
    object: "ticket",
    livemode: isLiveScope(row.workspace_id),
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
    external_id: row.external_id,
    custom_attributes: row.custom_attributes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
  };
}

/** The fields a new ticket has set (neither null nor empty): `ticket.updated` on creation names them. */
export function fieldsSetOnCreate(ticket: Ticket): TicketField[] {
  return TICKET_FIELDS.filter((field) => {
    const value = ticket[field];
    return value !== null && !(typeof value === "object" && Object.keys(value).length === 0);
  });
}

const TIMESTAMPS: ReadonlySet<TicketField> = new Set(["due_at", "solved_at", "closed_at"]);

/** A patch value as the wire shows it (timestamps in the API's ISO form), to compare with the current ticket. */
function asWire(field: TicketField, value: unknown): unknown {
  if (TIMESTAMPS.has(field) && typeof value === "string") return wireInstant(value);
  return value ?? null;
}

/**
 * What a patch does to the `current` ticket at `now`, or the 409 that refuses its status move: the values to write
 * (tags de-duplicated; `solved_at`/`closed_at` stamped on reaching `solved`/`closed`, `solved_at` cleared on
 * reopening a solved ticket) and the fields whose value really changes (a patch that repeats the current values
 * changes nothing).
 */
export function ticketChanges(
  current: Ticket,
  patch: TicketUpdate,
  now: Date,
): { changes: TicketChanges; changed: TicketField[] } {
  const changes: TicketChanges = { ...patch };
  if (patch.tags) changes.tags = [...new Set(patch.tags)];
  if (patch.status && patch.status !== current.status) {
    const allowed = TICKET_TRANSITIONS[current.status];
    if (!allowed.includes(patch.status)) {
      throw new AppError("INVALID_STATE_TRANSITION", {
        detail: `A ${current.status} ticket cannot become ${patch.status}; ${allowed.length ? `allowed: ${allowed.join(", ")}` : "closed is final"}.`,
      });
    }
    const at = now.toISOString();
    if (patch.status === "solved") changes.solved_at = at;
    if (patch.status === "closed") changes.closed_at = at;
    if (patch.status === "open" && current.status === "solved") changes.solved_at = null;
  }
  const changed = TICKET_FIELDS.filter(
    (field) => field in changes && !isDeepStrictEqual(asWire(field, changes[field]), current[field]),
  );
  return { changes, changed };
}

export function listTickets(db: Queryable, workspaceId: string, query: TicketFilters & PageParams) {
  return store.listTicketRows(db, workspaceId, query, query, toTicket);
}

export async function getTicket(db: Queryable, workspaceId: string, id: string): Promise<Ticket> {
  return toTicket(await store.findTicketRow(db, workspaceId, id));
}

export async function createTicket(
  db: Queryable,
  workspaceId: string,
  input: TicketCreate,
  record: RecordEvent,
): Promise<Ticket> {
  await requireLead(db, workspaceId, input.lead_id);
  await requireConversation(db, workspaceId, input.conversation_id);
  // The number first: every ticket write takes the counter's row before a unique value's lock, so a batch that holds
  // the counter and a single create that holds a value never wait for each other.
  const number = await store.nextTicketNumber(db, workspaceId);
  await checkCustomAttributes(db, workspaceId, "ticket", input.custom_attributes ?? {});
  const row = await store.insertTicketRow(db, workspaceId, number, {
    subject: input.subject,
    description: input.description ?? null,
    status: input.status ?? "new",
    priority: input.priority ?? "normal",
    lead_id: input.lead_id ?? null,
    conversation_id: input.conversation_id ?? null,
    assignee: input.assignee ?? null,
    tags: [...new Set(input.tags ?? [])],
    due_at: input.due_at ?? null,
    external_id: input.external_id ?? null,
    custom_attributes: input.custom_attributes ?? {},
  });
  const ticket = toTicket(row);
  await record(db, workspaceId, "ticket.updated", {
    object: ticket,
    changed_fields: fieldsSetOnCreate(ticket),
    previous_attributes: {},
  });
  return ticket;
}

/** Applies a change; records `ticket.updated` only when something actually changed. */
export async function updateTicket(
  db: Queryable,
  workspaceId: string,
  id: string,
  patch: TicketUpdate,
  record: RecordEvent,
  expect?: Precondition,
  now: Date = new Date(),
): Promise<Ticket> {
  const current = toTicket(await store.lockTicketRow(db, workspaceId, id));
  expect?.(current);
  return updateLockedTicket(db, workspaceId, current, patch, record, now);
}

/** `updateTicket` of a ticket the caller has locked (`current`, as it is stored). */
export async function updateLockedTicket(
  db: Queryable,
  workspaceId: string,
  current: Ticket,
  patch: TicketUpdate,
  record: RecordEvent,
  now: Date = new Date(),
): Promise<Ticket> {
  if (patch.lead_id) await requireLead(db, workspaceId, patch.lead_id);
  if (patch.conversation_id) await requireConversation(db, workspaceId, patch.conversation_id);
  if (patch.custom_attributes) {
    await checkCustomAttributes(db, workspaceId, "ticket", patch.custom_attributes, { self: current.id });
  }
  const { changes, changed } = ticketChanges(current, patch, now);
  if (changed.length === 0) return current;
  const ticket = toTicket(await store.updateTicketRow(db, workspaceId, current.id, changes, changed));
  await record(db, workspaceId, "ticket.updated", {
    object: ticket,
    changed_fields: changed,
    previous_attributes: Object.fromEntries(changed.map((field) => [field, current[field]])),
  });
  return ticket;
}

/** Takes a deleted lead off its tickets (leads/lead-deletion.ts); returns them as changed. */
export async function detachTicketsFromLead(db: Queryable, workspaceId: string, leadId: string): Promise<Ticket[]> {
  return (await store.detachLeadRows(db, workspaceId, leadId)).map(toTicket);
}
