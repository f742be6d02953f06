/**
 * Conversations and their messages: the wire shapes and the rules of a write. Creating one records
 * `conversation.created` in the write's transaction.
 *
 * States (spec/models/conversations.tsp): `open` ⇄ `snoozed` (with `snoozed_until` in the future), either to
 * `closed`, and `closed` → `open`. A snooze ends by itself at `snoozed_until`: from that instant the conversation
 * is `open` with `snoozed_until` null. Reads get that from the store, which maps an ended snooze in SQL (no job has
 * to run first); an update starts from `open` and stores the reopening with its other changes.
 *
 * `updated_at` is the time of the last write: a snooze that ends by itself does not change it (reading never
 * writes), so `updated_after` does not see it; the next update of the conversation sets it, as any write does.
 */
import type { components } from "@service/spec/schema";
import type { Db } from "../../db/db.ts";
import type { PageParams } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { requireLead } from "../leads/leads.service.ts";
import type { ConversationChanges, ConversationFilters, ConversationRow, MessageRow } from "./conversations.store.ts";
import * as store from "./conversations.store.ts";

export type Conversation = components["schemas"]["Conversation"];
type ConversationCreate = components["schemas"]["ConversationCreate"];
type ConversationUpdate = components["schemas"]["ConversationUpdate"];
export type Message = components["schemas"]["Message"];
type MessageCreate = components["schemas"]["MessageCreate"];
type State = Conversation["state"];

/** Legal moves between conversation states (a move to the same state is not a move). */
export const CONVERSATION_TRANSITIONS: Readonly<Record<State, readonly State[]>> = {
  open: ["snoozed", "closed"],
  snoozed: ["open", "closed"],
  closed: ["open"],
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    object: "conversation",
    lead_id: row.lead_id,
    subject: row.subject,
    channel: row.channel,
    state: row.state,
    snoozed_until: iso(row.snoozed_until),
    assignee: row.assignee,
    priority: row.priority,
    last_message_at: iso(row.last_message_at),
    message_count: row.message_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    object: "message",
    conversation_id: row.conversation_id,
    author: { type: row.author_type, id: row.author_id },
    body: row.body,
    visibility: row.visibility,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * The columns a patch sets on a conversation in `current`'s state, or the 409/400 that refuses it: the move must be
 * in the table, a snoozed conversation needs `snoozed_until` in the future (kept from before when it stays
 * snoozed), and leaving `snoozed` clears it.
 *
 * A snooze that ended at or before `now` counts as `open` (the store already reads it so; checking again here keeps
 * the rule whole when the snooze ends between the read and this check). The changes always name the resulting
 * `state`, so that writing them also stores a reopening that until then was only read.
 */
export function conversationChanges(
  current: Pick<ConversationRow, "state" | "snoozed_until">,
  patch: ConversationUpdate,
  now: Date,
): ConversationChanges {
  const snoozeEnded = current.state === "snoozed" && (!current.snoozed_until || current.snoozed_until <= now);
  const from: State = snoozeEnded ? "open" : current.state;
  const state = patch.state ?? from;
  if (state !== from && !CONVERSATION_TRANSITIONS[from].includes(state)) {
    throw new AppError("INVALID_STATE_TRANSITION", {
      detail: `A ${from} conversation cannot become ${state}; allowed: ${CONVERSATION_TRANSITIONS[from].join(", ")}.`,
    });
  }
  if (state === "snoozed") {
    const until = patch.snoozed_until ?? (from === "snoozed" ? current.snoozed_until?.toISOString() : undefined);
    if (!until || Date.parse(until) <= now.getTime()) {
      throw new AppError("VALIDATION_FAILED", {
        errors: [{ path: "body.snoozed_until", message: "a snoozed conversation needs snoozed_until in the future" }],
      });
    }
    return { ...patch, state, snoozed_until: until };
  }
  if (patch.snoozed_until) {
    throw new AppError("VALIDATION_FAILED", {
      errors: [{ path: "body.snoozed_until", message: "only a snoozed conversation has snoozed_until" }],
    });
  }
  return { ...patch, state, snoozed_until: null };
}

/** 404 `CONVERSATION_NOT_FOUND` unless the conversation a ticket points at is in the workspace; none is fine. */
export async function requireConversation(db: Db, workspaceId: string, id: string | null | undefined): Promise<void> {
  if (id) await store.findConversationRow(db, workspaceId, id);
}

export function listConversations(db: Db, workspaceId: string, query: ConversationFilters & PageParams) {
  return store.listConversationRows(db, workspaceId, query, query, toConversation);
}

export async function getConversation(db: Db, workspaceId: string, id: string): Promise<Conversation> {
  return toConversation(await store.findConversationRow(db, workspaceId, id));
}

function insertMessage(db: Db, workspaceId: string, conversationId: string, input: MessageCreate) {
  return store.insertMessageRow(db, workspaceId, conversationId, {
    author_type: input.author.type,
    author_id: input.author.id ?? null,
    body: input.body,
    visibility: input.visibility ?? "public",
  });
}

export async function createConversation(
  db: Db,
  workspaceId: string,
  input: ConversationCreate,
  record: RecordEvent,
): Promise<Conversation> {
  await requireLead(db, workspaceId, input.lead_id);
  const id = await store.insertConversationRow(db, workspaceId, {
    lead_id: input.lead_id ?? null,
    subject: input.subject ?? null,
    channel: input.channel ?? "api",
    assignee: input.assignee ?? null,
    priority: input.priority ?? "normal",
  });
  if (input.message) await insertMessage(db, workspaceId, id, input.message);
  // Read back after the first message, so that the event carries its count and time.
  const conversation = await getConversation(db, workspaceId, id);
  await record(db, workspaceId, "conversation.created", { object: conversation });
  return conversation;
}

export async function updateConversation(
  db: Db,
  workspaceId: string,
  id: string,
  patch: ConversationUpdate,
  now: Date = new Date(),
): Promise<Conversation> {
  const current = await store.lockConversationRow(db, workspaceId, id);
  const changes = conversationChanges(current, patch, now);
  return toConversation(await store.updateConversationRow(db, workspaceId, id, changes));
}

export async function listMessages(db: Db, workspaceId: string, conversationId: string, query: PageParams) {
  await store.findConversationRow(db, workspaceId, conversationId);
  return store.listMessageRows(db, workspaceId, conversationId, query, toMessage);
}

export async function addMessage(
  db: Db,
  workspaceId: string,
  conversationId: string,
  input: MessageCreate,
): Promise<Message> {
  await store.lockConversationRow(db, workspaceId, conversationId);
  return toMessage(await insertMessage(db, workspaceId, conversationId, input));
}
