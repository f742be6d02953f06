/**
 * Conversations and their messages: the wire shapes and the rules of a write. Every change records its events in the
 * write's transaction: `conversation.created` (and `message.created` for a first message), `conversation.updated`
 * when a value really changes (a state move, a new message, a snooze that ended), `message.created`.
 *
 * States (spec/models/conversations.tsp): `open` ⇄ `snoozed` (with `snoozed_until` in the future), either to
 * `closed`, and `closed` → `open`. A snooze ends at `snoozed_until` by a pg-boss job scheduled when it is set
 * (snooze-end.ts), which stores the reopening and records it; an update that comes first starts from `open`.
 */

import { isDeepStrictEqual } from "node:util";
import type { components } from "@service/spec/schema";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { instantOf, wireInstant } from "../../lib/date-time.ts";
import { checkCustomAttributes } from "../attribute-definitions/attribute-definitions.service.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { requireLead } from "../leads/leads.service.ts";
import { isLiveScope } from "../modes.ts";
import type { Precondition } from "../preconditions.ts";
import type { ConversationChanges, ConversationFilters, ConversationRow, MessageRow } from "./conversations.store.ts";
import * as store from "./conversations.store.ts";
import { CONVERSATION_FIELDS } from "./conversations.store.ts";

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
    livemode: isLiveScope(row.workspace_id),
    lead_id: row.lead_id,
    subject: row.subject,
    channel: row.channel,
    state: row.state,
    snoozed_until: iso(row.snoozed_until),
    assignee: row.assignee,
    priority: row.priority,
    last_message_at: iso(row.last_message_at),
    message_count: row.message_count,
    custom_attributes: row.custom_attributes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
  };
}

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    object: "message",
    livemode: isLiveScope(row.workspace_id),
    conversation_id: row.conversation_id,
    author: { type: row.author_type, id: row.author_id },
    body: row.body,
    visibility: row.visibility,
    created_at: row.created_at.toISOString(),
    version: row.version,
  };
}

/** What a conversation's writes need beyond the database: the recorder of events and the snooze's end. */
export interface ConversationWriteDeps {
  record: RecordEvent;
  /** Schedules the end of a snooze at `until`, in the caller's transaction (snooze-end.ts). */
  scheduleSnoozeEnd(db: Queryable, workspaceId: string, conversationId: string, until: Date): Promise<void>;
}

type ConversationField = (typeof CONVERSATION_FIELDS)[number];

/** `conversation.updated`'s data: the conversation after, what changed, and what it was before. */
function conversationUpdate(before: Conversation, after: Conversation) {
  const changed = CONVERSATION_FIELDS.filter((field) => !isDeepStrictEqual(before[field], after[field]));
  return {
    object: after,
    changed_fields: changed,
    previous_attributes: Object.fromEntries(changed.map((field) => [field, before[field]])),
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
  current: Pick<ConversationRow, "state" | "snoozed_until"> & Partial<ConversationRow>,
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
    if (!until || instantOf(until).getTime() <= now.getTime()) {
      throw new AppError("VALIDATION_FAILED", {
        errors: [{ path: "body.snoozed_until", message: "a snoozed conversation needs snoozed_until in the future" }],
      });
    }
    return onlyChanged(current, { ...patch, state, snoozed_until: wireInstant(until) });
  }
  if (patch.snoozed_until) {
    throw new AppError("VALIDATION_FAILED", {
      errors: [{ path: "body.snoozed_until", message: "only a snoozed conversation has snoozed_until" }],
    });
  }
  return onlyChanged(current, { ...patch, state, snoozed_until: null });
}

/** The changes that set a value other than the current one (a patch that repeats the current values changes nothing). */
function onlyChanged(
  current: Pick<ConversationRow, "state" | "snoozed_until"> & Partial<ConversationRow>,
  changes: ConversationChanges,
): ConversationChanges {
  const wire = (field: keyof ConversationChanges, value: unknown) =>
    field === "snoozed_until" && value instanceof Date ? value.toISOString() : (value ?? null);
  return Object.fromEntries(
    Object.entries(changes).filter(
      ([field, value]) =>
        !isDeepStrictEqual(
          wire(field as keyof ConversationChanges, value),
          wire(field as keyof ConversationChanges, current[field as ConversationField]),
        ),
    ),
  ) as ConversationChanges;
}

/** 404 `CONVERSATION_NOT_FOUND` unless the conversation a ticket points at is in the workspace; none is fine. */
export async function requireConversation(
  db: Queryable,
  workspaceId: string,
  id: string | null | undefined,
): Promise<void> {
  if (id) await store.findConversationRow(db, workspaceId, id);
}

export function listConversations(db: Queryable, workspaceId: string, query: ConversationFilters & PageParams) {
  return store.listConversationRows(db, workspaceId, query, query, toConversation);
}

export async function getConversation(db: Queryable, workspaceId: string, id: string): Promise<Conversation> {
  return toConversation(await store.findConversationRow(db, workspaceId, id));
}

function insertMessage(
  db: Queryable,
  workspaceId: string,
  conversationId: string,
  input: MessageCreate,
  changes: boolean,
) {
  return store.insertMessageRow(
    db,
    workspaceId,
    conversationId,
    {
      author_type: input.author.type,
      author_id: input.author.id ?? null,
      body: input.body,
      visibility: input.visibility ?? "public",
    },
    changes,
  );
}

export async function createConversation(
  db: Queryable,
  workspaceId: string,
  input: ConversationCreate,
  record: RecordEvent,
): Promise<Conversation> {
  await requireLead(db, workspaceId, input.lead_id);
  await checkCustomAttributes(db, workspaceId, "conversation", input.custom_attributes ?? {});
  const id = await store.insertConversationRow(db, workspaceId, {
    lead_id: input.lead_id ?? null,
    subject: input.subject ?? null,
    channel: input.channel ?? "api",
    assignee: input.assignee ?? null,
    priority: input.priority ?? "normal",
    custom_attributes: input.custom_attributes ?? {},
  });
  const first = input.message ? await insertMessage(db, workspaceId, id, input.message, false) : undefined;
  // Read back after the first message, so that the event carries its count and time.
  const conversation = await getConversation(db, workspaceId, id);
  await record(db, workspaceId, "conversation.created", { object: conversation });
  if (first) await record(db, workspaceId, "message.created", { object: toMessage(first.message) });
  return conversation;
}

export async function updateConversation(
  db: Queryable,
  workspaceId: string,
  id: string,
  patch: ConversationUpdate,
  deps: ConversationWriteDeps,
  expect?: Precondition,
  now: Date = new Date(),
): Promise<Conversation> {
  const current = await store.lockConversationRow(db, workspaceId, id);
  expect?.(current);
  if (patch.custom_attributes) {
    await checkCustomAttributes(db, workspaceId, "conversation", patch.custom_attributes, { self: id });
  }
  const changes = conversationChanges(current, patch, now);
  const before = toConversation(current);
  if (Object.keys(changes).length === 0) return before;
  const after = toConversation(await store.updateConversationRow(db, workspaceId, id, changes));
  if (after.state === "snoozed" && after.snoozed_until && changes.snoozed_until) {
    await deps.scheduleSnoozeEnd(db, workspaceId, id, new Date(after.snoozed_until));
  }
  await deps.record(db, workspaceId, "conversation.updated", conversationUpdate(before, after));
  return after;
}

/** Ends a due snooze (snooze-end.ts): stores `open` and records it; nothing when it is no longer due. */
export async function endSnooze(db: Queryable, workspaceId: string, id: string, record: RecordEvent): Promise<boolean> {
  const ended = await store.endSnoozeRow(db, workspaceId, id);
  if (!ended) return false;
  const data = conversationUpdate(toConversation(ended.before), toConversation(ended.after));
  await record(db, workspaceId, "conversation.updated", data);
  return true;
}

/** Takes a deleted lead off its conversations (lead-deletion.ts); returns them as changed. */
export async function detachConversationsFromLead(db: Queryable, workspaceId: string, leadId: string) {
  return (await store.detachLeadRows(db, workspaceId, leadId)).map(toConversation);
}

export async function listMessages(db: Queryable, workspaceId: string, conversationId: string, query: PageParams) {
  await store.findConversationRow(db, workspaceId, conversationId);
  return store.listMessageRows(db, workspaceId, conversationId, query, toMessage);
}

export async function getMessage(db: Queryable, workspaceId: string, conversationId: string, id: string) {
  await store.findConversationRow(db, workspaceId, conversationId);
  return toMessage(await store.findMessageRow(db, workspaceId, conversationId, id));
}

export async function addMessage(
  db: Queryable,
  workspaceId: string,
  conversationId: string,
  input: MessageCreate,
  record: RecordEvent,
): Promise<Message> {
  const before = toConversation(await store.lockConversationRow(db, workspaceId, conversationId));
  const added = await insertMessage(db, workspaceId, conversationId, input, true);
  const message = toMessage(added.message);
  await record(db, workspaceId, "message.created", { object: message });
  await record(db, workspaceId, "conversation.updated", conversationUpdate(before, toConversation(added.conversation)));
  return message;
}
