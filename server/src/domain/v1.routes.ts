/**
 * HTTP handlers of conversations, tickets and events (to be split into their resource folders like leads).
 */
import type pg from "pg";
import type { OperationHandlers } from "../http/handler-types.ts";
import { type WriteDeps, write } from "../http/write.ts";
import * as conversations from "./conversations/conversations.ts";
import type { RecordEvent } from "./events/events.ts";
import * as events from "./events/events.ts";
import * as tickets from "./tickets/tickets.ts";

export function v1Handlers(deps: WriteDeps & { pool: pg.Pool; record: RecordEvent }): OperationHandlers {
  const { pool, record } = deps;
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
      body: await conversations.createConversation(db, principal.workspaceId, body, record),
    })),
    Conversations_update: write(deps, async ({ principal, params, body }, db) => ({
      status: 200,
      body: await conversations.updateConversation(db, principal.workspaceId, params.conversation_id, body),
    })),
    Conversations_listMessages: async ({ principal, params, query }) => ({
      status: 200,
      body: await conversations.listMessages(pool, principal.workspaceId, params.conversation_id, query),
    }),
    Conversations_createMessage: write(deps, async ({ principal, params, body }, db) => ({
      status: 201,
      body: await conversations.addMessage(db, principal.workspaceId, params.conversation_id, body),
    })),

    Tickets_list: async ({ principal, query }) => ({
      status: 200,
      body: await tickets.listTickets(pool, principal.workspaceId, query),
    }),
    Tickets_get: async ({ principal, params }) => ({
      status: 200,
      body: tickets.toTicket(await tickets.getTicket(pool, principal.workspaceId, params.ticket_id)),
    }),
    Tickets_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await tickets.createTicket(db, principal.workspaceId, body, record),
    })),
    Tickets_update: write(deps, async ({ principal, params, body }, db) => ({
      status: 200,
      body: await tickets.updateTicket(db, principal.workspaceId, params.ticket_id, body, record),
    })),

    Events_list: async ({ principal, query }) => ({
      status: 200,
      body: await events.listEvents(pool, principal.workspaceId, query),
    }),
    Events_get: async ({ principal, params }) => ({
      status: 200,
      body: await events.getEvent(pool, principal.workspaceId, params.event_id),
    }),
  };
}
