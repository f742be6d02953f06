/**
 * HTTP handlers of `/v1/conversations` and their messages. Reads use the pool; writes run through `write` (one
 * transaction, idempotent).
 */
import type pg from "pg";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { recordEvent } from "../events/events.service.ts";
import { type WriteDeps, write } from "../idempotency/write-handler.ts";
import { ifMatch } from "../preconditions.ts";
import * as conversations from "./conversations.service.ts";

export function conversationHandlers(
  given: WriteDeps & Omit<conversations.ConversationWriteDeps, "record"> & { pool: pg.Pool },
): OperationHandlers {
  // Each write records its events in the change stream's outbox (events.service.ts).
  const deps = { ...given, record: recordEvent };
  const { pool } = deps;
  return {
    Conversations_list: async ({ principal, query }) => ({
      status: 200,
      body: await conversations.listConversations(pool, principal.workspaceId, query),
    }),
    Conversations_get: async ({ principal, params }) => ({
      status: 200,
      body: await conversations.getConversation(pool, principal.workspaceId, params.conversation_id),
    }),
    Conversations_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await conversations.createConversation(db, principal.workspaceId, body, deps.record),
    })),
    Conversations_update: write(deps, async ({ principal, params, body, request }, db) => ({
      status: 200,
      body: await conversations.updateConversation(
        db,
        principal.workspaceId,
        params.conversation_id,
        body,
        deps,
        ifMatch(request.header("if-match")),
      ),
    })),
    Conversations_listMessages: async ({ principal, params, query }) => ({
      status: 200,
      body: await conversations.listMessages(pool, principal.workspaceId, params.conversation_id, query),
    }),
    Conversations_getMessage: async ({ principal, params }) => ({
      status: 200,
      body: await conversations.getMessage(pool, principal.workspaceId, params.conversation_id, params.message_id),
    }),
    Conversations_createMessage: write(deps, async ({ principal, params, body }, db) => ({
      status: 201,
      body: await conversations.addMessage(db, principal.workspaceId, params.conversation_id, body, deps.record),
    })),
  };
}
