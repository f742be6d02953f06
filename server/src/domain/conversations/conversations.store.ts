/** All SQL of conversations and their messages. Every statement is scoped to a workspace. */
import type { components } from "@service/spec/schema";
import { findInWorkspace, listPage, type PageParams, updateRow } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";

type Conversation = components["schemas"]["Conversation"];
type Message = components["schemas"]["Message"];

export interface ConversationRow {
  id: string;
  /** The scope: the workspace's, or its test scope's (domain/modes.ts). */
  workspace_id: string;
  lead_id: string | null;
  subject: string | null;
  channel: Conversation["channel"];
  state: Conversation["state"];
  snoozed_until: Date | null;
  assignee: string | null;
  priority: Conversation["priority"];
  last_message_at: Date | null;
  message_count: number;
  custom_attributes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  version: number;
}

export interface MessageRow {
  id: string;
  workspace_id: string;
  conversation_id: string;
  author_type: Message["author"]["type"];
  author_id: string | null;
  body: string;
  visibility: Message["visibility"];
  created_at: Date;
  version: number;
}

/**
 * The columns an update may set, as the service has checked them against the state moves. `state` and
 * `snoozed_until` are always written, so that an update also stores a snooze that has ended as `open`.
 */
export interface ConversationChanges {
  subject?: string | null;
  state?: ConversationRow["state"];
  snoozed_until?: string | null;
  assignee?: string | null;
  priority?: ConversationRow["priority"];
  custom_attributes?: Record<string, unknown>;
}

const UPDATABLE = ["subject", "state", "snoozed_until", "assignee", "priority", "custom_attributes"];

export interface ConversationFilters {
  state?: ConversationRow["state"];
  lead_id?: string;
  assignee?: string;
  created_after?: string;
  updated_after?: string;
}

/**
 * The columns a write compares and reports (`changed_fields`), in the wire's order. A snooze ends by a job at
 * `snoozed_until` (snooze-end.ts), which stores the reopening as any change is stored: what a read returns is what is
 * stored, and every change of it is an event.
 */
export const CONVERSATION_FIELDS = [
  "lead_id",
  "subject",
  "state",
  "snoozed_until",
  "assignee",
  "priority",
  "last_message_at",
  "message_count",
  "custom_attributes",
] as const;

const conversationNotFound = (id: string) =>
  new AppError("CONVERSATION_NOT_FOUND", { detail: `No conversation ${id} in this workspace.` });

export function listConversationRows<Item>(
  db: Queryable,
  workspaceId: string,
  filters: ConversationFilters,
  page: PageParams,
  toItem: (row: ConversationRow) => Item,
) {
  return listPage(
    db,
    {
      select: "SELECT * FROM conversations",
      kind: "conversation",
      workspaceId,
      filters: [
        ["state = ?", filters.state],
        ["lead_id = ?", filters.lead_id],
        ["assignee = ?", filters.assignee],
        ["created_at >= ?", filters.created_after],
        ["updated_at >= ?", filters.updated_after],
      ],
    },
    page,
    toItem,
  );
}

export function findConversationRow(db: Queryable, workspaceId: string, id: string): Promise<ConversationRow> {
  return findInWorkspace<ConversationRow>(db, "conversations", workspaceId, id, () => conversationNotFound(id));
}

/**
 * The row, locked until the transaction ends: a state move reads the current state and writes the next one, and a
 * new message bumps the count, so two concurrent writes must not both start from the same row.
 */
export function lockConversationRow(db: Queryable, workspaceId: string, id: string): Promise<ConversationRow> {
  return findInWorkspace<ConversationRow>(db, "conversations", workspaceId, id, () => conversationNotFound(id), {
    forUpdate: true,
  });
}

export async function insertConversationRow(
  db: Queryable,
  workspaceId: string,
  values: Pick<ConversationRow, "lead_id" | "subject" | "channel" | "assignee" | "priority" | "custom_attributes">,
): Promise<string> {
  const id = newId("conversation");
  await db.query(
    `INSERT INTO conversations (id, workspace_id, lead_id, subject, channel, state, assignee, priority, custom_attributes)
     VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $8)`,
    [
      id,
      workspaceId,
      values.lead_id,
      values.subject,
      values.channel,
      values.assignee,
      values.priority,
      JSON.stringify(values.custom_attributes),
    ],
  );
  return id;
}

/** Writes the changes (only what really changes: the service compares) and returns the row as stored. */
export async function updateConversationRow(
  db: Queryable,
  workspaceId: string,
  id: string,
  changes: ConversationChanges,
): Promise<ConversationRow> {
  const row = await updateRow<ConversationRow>(db, "conversations", workspaceId, id, { ...changes }, UPDATABLE, {
    versioned: true,
  });
  if (!row) throw conversationNotFound(id);
  return row;
}

/** A message of a conversation of the workspace (a message id under another conversation is not found). */
export async function findMessageRow(
  db: Queryable,
  workspaceId: string,
  conversationId: string,
  id: string,
): Promise<MessageRow> {
  const { rows } = await db.query<MessageRow>({
    name: "find-message",
    text: "SELECT * FROM messages WHERE workspace_id = $1 AND conversation_id = $2 AND id = $3",
    values: [workspaceId, conversationId, id],
  });
  if (!rows[0]) {
    throw new AppError("MESSAGE_NOT_FOUND", { detail: `No message ${id} in conversation ${conversationId}.` });
  }
  return rows[0];
}

export function listMessageRows<Item>(
  db: Queryable,
  workspaceId: string,
  conversationId: string,
  page: PageParams,
  toItem: (row: MessageRow) => Item,
) {
  return listPage(
    db,
    {
      select: "SELECT * FROM messages",
      kind: "message",
      workspaceId,
      filters: [["conversation_id = ?", conversationId]],
    },
    page,
    toItem,
  );
}

/**
 * Adds a message and counts it on its conversation, in the caller's transaction; returns both as stored. A message
 * added to an existing conversation changes it (one more `version`); the first message of a new one is part of its
 * creation (`version` stays 1).
 */
export async function insertMessageRow(
  db: Queryable,
  workspaceId: string,
  conversationId: string,
  values: Pick<MessageRow, "author_type" | "author_id" | "body" | "visibility">,
  changesConversation: boolean,
): Promise<{ message: MessageRow; conversation: ConversationRow }> {
  const { rows } = await db.query<MessageRow>(
    `INSERT INTO messages (id, workspace_id, conversation_id, author_type, author_id, body, visibility)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [
      newId("message"),
      workspaceId,
      conversationId,
      values.author_type,
      values.author_id,
      values.body,
      values.visibility,
    ],
  );
  const message = rows[0] as MessageRow;
  const updated = await db.query<ConversationRow>(
    `UPDATE conversations SET message_count = message_count + 1, last_message_at = $3, updated_at = now(),
            version = version + $4
      WHERE workspace_id = $1 AND id = $2 RETURNING *`,
    [workspaceId, conversationId, message.created_at, changesConversation ? 1 : 0],
  );
  return { message, conversation: updated.rows[0] as ConversationRow };
}

/** Takes the lead off its conversations (the lead is being deleted); returns them as stored. */
export async function detachLeadRows(db: Queryable, workspaceId: string, leadId: string): Promise<ConversationRow[]> {
  const { rows } = await db.query<ConversationRow>(
    `UPDATE conversations SET lead_id = NULL, updated_at = now(), version = version + 1
      WHERE workspace_id = $1 AND lead_id = $2 RETURNING *`,
    [workspaceId, leadId],
  );
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Ends a snooze that is due: the row, when it is still snoozed until no later than `now()`, becomes `open`. Returns
 * the row before and after, or nothing when there was nothing to end (updated, reopened or snoozed again meanwhile).
 */
export async function endSnoozeRow(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<{ before: ConversationRow; after: ConversationRow } | undefined> {
  const { rows } = await db.query<ConversationRow>(
    "SELECT * FROM conversations WHERE workspace_id = $1 AND id = $2 AND state = 'snoozed' AND snoozed_until <= now() FOR UPDATE",
    [workspaceId, id],
  );
  const before = rows[0];
  if (!before) return undefined;
  const after = await updateConversationRow(db, workspaceId, id, { state: "open", snoozed_until: null });
  return { before, after };
}
