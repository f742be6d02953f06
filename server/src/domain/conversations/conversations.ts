/**
 * Conversations and their messages. Creating one records `conversation.created` in the same transaction.
 *
 * States: `open` ⇄ `snoozed` (with `snoozed_until` in the future), either to `closed`, and `closed` → `open`.
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { fetchPage, updateRow } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, toPage } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import type { RecordEvent } from "../events/events.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Conversation = components["schemas"]["Conversation"];
export type ConversationCreate = components["schemas"]["ConversationCreate"];
export type ConversationUpdate = components["schemas"]["ConversationUpdate"];
export type Message = components["schemas"]["Message"];
export type MessageCreate = components["schemas"]["MessageCreate"];
type State = Conversation["state"];

const CONVERSATION_ID = /^conv_[0-9A-HJKMNP-TV-Z]{26}$/;
const MESSAGE_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;
const UPDATABLE = ["subject", "state", "snoozed_until", "assignee", "priority"];

/** Legal moves between conversation states (a move to the same state is not a move). */
export const CONVERSATION_TRANSITIONS: Readonly<Record<State, readonly State[]>> = {
  open: ["snoozed", "closed"],
  snoozed: ["open", "closed"],
  closed: ["open"],
};

interface ConversationRow {
  id: string;
  lead_id: string | null;
  subject: string | null;
  channel: Conversation["channel"];
  state: State;
  snoozed_until: Date | null;
  assignee: string | null;
  priority: Conversation["priority"];
  last_message_at: Date | null;
  message_count: number;
  created_at: Date;
  updated_at: Date;
}

interface MessageRow {
  id: string;
  conversation_id: string;
  author_type: Message["author"]["type"];
  author_id: string | null;
  body: string;
  visibility: Message["visibility"];
  created_at: Date;
}

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

export async function requireLead(db: Db, workspaceId: string, leadId: string | null | undefined): Promise<void> {
  if (!leadId) return;
  const { rowCount } = await db.query("SELECT 1 FROM leads WHERE workspace_id = $1 AND id = $2", [workspaceId, leadId]);
  if (!rowCount) throw new AppError("LEAD_NOT_FOUND", { detail: `No lead ${leadId} in this workspace.` });
}

async function lockConversation(db: Db, workspaceId: string, id: string): Promise<ConversationRow> {
  const { rows } = await db.query<ConversationRow>(
    "SELECT * FROM conversations WHERE workspace_id = $1 AND id = $2 FOR UPDATE",
    [workspaceId, id],
  );
  if (!rows[0]) throw new AppError("CONVERSATION_NOT_FOUND", { detail: `No conversation ${id} in this workspace.` });
  return rows[0];
}

export async function listConversations(
  db: Db,
  workspaceId: string,
  query: {
    limit?: number;
    cursor?: string;
    state?: State;
    lead_id?: string;
    assignee?: string;
    created_after?: string;
    updated_after?: string;
  },
) {
  const limit = query.limit ?? 20;
  const rows = await fetchPage<ConversationRow>(db, {
    select: "SELECT * FROM conversations",
    workspaceId,
    filters: [
      ["state = ?", query.state],
      ["lead_id = ?", query.lead_id],
      ["assignee = ?", query.assignee],
      ["created_at >= ?", query.created_after],
      ["updated_at >= ?", query.updated_after],
    ],
    limit,
    after: decodeCursor(query.cursor, CONVERSATION_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toConversation) };
}

export async function getConversation(db: Db, workspaceId: string, id: string): Promise<Conversation> {
  const { rows } = await db.query<ConversationRow>("SELECT * FROM conversations WHERE workspace_id = $1 AND id = $2", [
    workspaceId,
    id,
  ]);
  if (!rows[0]) throw new AppError("CONVERSATION_NOT_FOUND", { detail: `No conversation ${id} in this workspace.` });
  return toConversation(rows[0]);
}

async function insertMessage(
  db: Db,
  workspaceId: string,
  conversationId: string,
  input: MessageCreate,
): Promise<Message> {
  const { rows } = await db.query<MessageRow>(
    `INSERT INTO messages (id, workspace_id, conversation_id, author_type, author_id, body, visibility)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [
      newId("message"),
      workspaceId,
      conversationId,
      input.author.type,
      input.author.id ?? null,
      input.body,
      input.visibility ?? "public",
    ],
  );
  const message = rows[0] as MessageRow;
  await db.query(
    `UPDATE conversations SET message_count = message_count + 1, last_message_at = $3, updated_at = now()
      WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, conversationId, message.created_at],
  );
  return toMessage(message);
}

export async function createConversation(
  db: Db,
  workspaceId: string,
  input: ConversationCreate,
  record: RecordEvent,
): Promise<Conversation> {
  await requireLead(db, workspaceId, input.lead_id);
  const id = newId("conversation");
  await db.query(
    `INSERT INTO conversations (id, workspace_id, lead_id, subject, channel, state, assignee, priority)
     VALUES ($1, $2, $3, $4, $5, 'open', $6, $7)`,
    [
      id,
      workspaceId,
      input.lead_id ?? null,
      input.subject ?? null,
      input.channel ?? "api",
      input.assignee ?? null,
      input.priority ?? "normal",
    ],
  );
  if (input.message) await insertMessage(db, workspaceId, id, input.message);
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
  const current = await lockConversation(db, workspaceId, id);
  const changes: Record<string, unknown> = { ...patch };
  const state = patch.state ?? current.state;
  if (state !== current.state && !CONVERSATION_TRANSITIONS[current.state].includes(state)) {
    throw new AppError("INVALID_STATE_TRANSITION", {
      detail: `A ${current.state} conversation cannot become ${state}; allowed: ${CONVERSATION_TRANSITIONS[current.state].join(", ")}.`,
    });
  }
  if (state === "snoozed") {
    const until =
      patch.snoozed_until ?? (current.state === "snoozed" ? current.snoozed_until?.toISOString() : undefined);
    if (!until || Date.parse(until) <= now.getTime()) {
      throw new AppError("VALIDATION_FAILED", {
        errors: [{ path: "body.snoozed_until", message: "a snoozed conversation needs snoozed_until in the future" }],
      });
    }
    changes.snoozed_until = until;
  } else {
    if (patch.snoozed_until) {
      throw new AppError("VALIDATION_FAILED", {
        errors: [{ path: "body.snoozed_until", message: "only a snoozed conversation has snoozed_until" }],
      });
    }
    changes.snoozed_until = null;
  }
  const row = await updateRow<ConversationRow>(db, "conversations", workspaceId, id, changes, UPDATABLE);
  return toConversation(row as ConversationRow);
}

export async function listMessages(
  db: Db,
  workspaceId: string,
  conversationId: string,
  query: { limit?: number; cursor?: string },
) {
  await getConversation(db, workspaceId, conversationId);
  const limit = query.limit ?? 20;
  const rows = await fetchPage<MessageRow>(db, {
    select: "SELECT * FROM messages",
    workspaceId,
    filters: [["conversation_id = ?", conversationId]],
    limit,
    after: decodeCursor(query.cursor, MESSAGE_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toMessage) };
}

export async function addMessage(
  db: Db,
  workspaceId: string,
  conversationId: string,
  input: MessageCreate,
): Promise<Message> {
  await lockConversation(db, workspaceId, conversationId);
  return insertMessage(db, workspaceId, conversationId, input);
}
