/**
 * Deleting a lead, with what it changes: its conversations and tickets lose their `lead_id` (a change of each, one
 * more `version`), and every changed object is one event of the same transaction, consecutive in the stream:
 * `lead.deleted` with the lead's last state (and one more `version`: the deletion is a change), then
 * `conversation.updated` and `ticket.updated` for each one detached.
 *
 * The lead is locked first, so a conversation or ticket being made for it either commits before (and is detached
 * here) or waits and then finds no lead; the foreign keys' ON DELETE SET NULL never has to act unseen.
 */
import type { Queryable } from "../../db/queryable.ts";
import { detachConversationsFromLead } from "../conversations/conversations.service.ts";
import type { Change } from "../events/events.service.ts";
import type { Precondition } from "../preconditions.ts";
import { detachTicketsFromLead } from "../tickets/tickets.service.ts";
import { deleteLead, lockLead } from "./leads.service.ts";

export type RecordEvents = (db: Queryable, workspaceId: string, changes: readonly Change[]) => Promise<unknown>;

export async function deleteLeadAndDetach(
  db: Queryable,
  workspaceId: string,
  id: string,
  record: RecordEvents,
  expect?: Precondition,
): Promise<void> {
  const lead = await lockLead(db, workspaceId, id, expect);
  const conversations = await detachConversationsFromLead(db, workspaceId, id);
  const tickets = await detachTicketsFromLead(db, workspaceId, id);
  await deleteLead(db, workspaceId, id);
  const detached = { changed_fields: ["lead_id"], previous_attributes: { lead_id: id } };
  await record(db, workspaceId, [
    // The deletion is the lead's last change: one more version, so a receiver that keeps the highest lets it win.
    { type: "lead.deleted", data: { object: { ...lead, version: lead.version + 1 } } },
    ...conversations.map((object) => ({ type: "conversation.updated" as const, data: { object, ...detached } })),
    ...tickets.map((object) => ({ type: "ticket.updated" as const, data: { object, ...detached } })),
  ]);
}
