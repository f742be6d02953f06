/** All SQL of conversations and their messages. Every statement is scoped to a workspace. */
import type { components } from "@service/spec/schema";
import type { Db } from "../../db/db.ts";
import { findInWorkspace, listPage, type PageParams, updateRow } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";

type Conversation = components["schemas"]["Conversation"];
type Message = components["schemas"]["Message"];

export interface ConversationRow {
  id: string;
  lead_id: string | null;
  subject: string | null;
  channel: Conversation["channel"];
  state: Conversation["state"];
  snoozed_until: Date | null;
  assignee: string | null;
  priority: Conversation["priority"];
  last_message_at: Date | null;
  message_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  author_type: Message["author"]["type"];
  author_id: string | null;
  body: string;
  visibility: Message["visibility"];
  created_at: Date;
}

/**
 * The columns an update may set, as the service has checked them against the state moves. `state` and
 * `snoozed_until` are always written, so that an update also stores a snooze that has ended as `open`.
 */
export interface ConversationChanges {
  subject?: string | null;
  state: ConversationRow["state"];
  snoozed_until: string | null;
  assignee?: string | null;
  priority?: ConversationRow["priority"];
}

const UPDATABLE = ["subject", "state", "snoozed_until", "assignee", "priority"];

export interface ConversationFilters {
  state?: ConversationRow["state"];
  lead_id?: string;
  assignee?: string;
  created_after?: string;
  updated_after?: string;
}

/**
 * A snooze ends by itself at `snoozed_until` (spec/models/conversations.tsp), with no job having to run first: every
 * read of a conversation goes through this select list, which maps a stored `snoozed` whose `snoozed_until` is not
 * after `now()` to `open` with `snoozed_until` null. An update stores the reopening (the service always writes the
 * state); until then the row keeps its stored `snoozed`, and reading it writes nothing (nor its `updated_at`).
 * No periodic job rewrites ended snoozes: every read already answers `open`, so it would change no answer.
 */
const SNOOZE_ENDED = "(state = 'snoozed' AND snoozed_until <= now())";
const CONVERSATION_COLUMNS = `id, lead_id, subject, channel,
  CASE WHEN ${SNOOZE_ENDED} THEN 'open' ELSE state END AS state,
  CASE WHEN ${SNOOZE_ENDED} THEN NULL ELSE snoozed_until END AS snoozed_until,
  assignee, priority, last_message_at, message_count, created_at, updated_at`;

/**
 * The list's `state` filter on the same effective state as the select list. Spelled per state rather than as
 * `CASE … = ?`, so that each is a plain condition on the stored columns that an index on them could serve. There
 * is no index on `state` today: EXPLAIN shows the same plan as the plain `state = ?` had, a backward walk by id that
 * filters the workspace's rows.
 */
const STATE_FILTERS: Readonly<Record<ConversationRow["state"], string>> = {
  open: "(state = ? OR (state = 'snoozed' AND snoozed_until <= now()))",
  snoozed: "(state = ? AND snoozed_until > now())",
  closed: "state = ?",
};

const conversationNotFound = (id: string) =>
  new AppError("CONVERSATION_NOT_FOUND", { detail: `No conversation ${id} in this workspace.` });

export function listConversationRows<Item>(
  db: Db,
  workspaceId: string,
  filters: ConversationFilters,
  page: PageParams,
  toItem: (row: ConversationRow) => Item,
) {
  return listPage(
    db,
    {
      select: `SELECT ${CONVERSATION_COLUMNS} FROM conversations`,
      kind: "conversation",
      workspaceId,
      filters: [
        [filters.state ? STATE_FILTERS[filters.state] : "", filters.state],
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

export function findConversationRow(db: Db, workspaceId: string, id: string): Promise<ConversationRow> {
  return findInWorkspace<ConversationRow>(db, "conversations", workspaceId, id, () => conversationNotFound(id), {
    columns: CONVERSATION_COLUMNS,
  });
}

/**
 * The row, locked until the transaction ends: a state move reads the current state and writes the next one, and a
 * new message bumps the count, so two concurrent writes must not both start from the same row.
 */
export function lockConversationRow(db: Db, workspaceId: string, id: string): Promise<ConversationRow> {
  return findInWorkspace<ConversationRow>(db, "conversations", workspaceId, id, () => conversationNotFound(id), {
    forUpdate: true,
    columns: CONVERSATION_COLUMNS,
  });
}

export async function insertConversationRow(
  db: Db,
  workspaceId: string,
  values: Pick<ConversationRow, "lead_id" | "subject" | "channel" | "assignee" | "priority">,
): Promise<string> {
  const id = newId("conversation");
  await db.query(
    `INSERT INTO conversations (id, workspace_id, lead_id, subject, channel, state, assignee, priority)
     VALUES ($1, $2, $3, $4, $5, 'open', $6, $7)`,
    [id, workspaceId, values.lead_id, values.subject, values.channel, values.assignee, values.priority],
  );
  return id;
}

/**
 * Writes the changes and returns the row as stored. The service's changes always name `state` (and with it
 * `snoozed_until`), so a snooze that had ended is stored as `open` here and the stored row needs no mapping.
 */
export async function updateConversationRow(
  db: Db,
  workspaceId: string,
  id: string,
  changes: ConversationChanges,
): Promise<ConversationRow> {
  const row = await updateRow<ConversationRow>(db, "conversations", workspaceId, id, { ...changes }, UPDATABLE);
  if (!row) throw conversationNotFound(id);
  return row;
}

export function listMessageRows<Item>(
  db: Db,
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

/** Adds a message and counts it on its conversation, in the caller's transaction. */
export async function insertMessageRow(
  db: Db,
  workspaceId: string,
  conversationId: string,
  values: Pick<MessageRow, "author_type" | "author_id" | "body" | "visibility">,
): Promise<MessageRow> {
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
  await db.query(
    `UPDATE conversations SET message_count = message_count + 1, last_message_at = $3, updated_at = now()
      WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, conversationId, message.created_at],
  );
  return message;
}
