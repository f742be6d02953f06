/** HTTP handlers of `/v1/tickets`. Reads use the pool; writes run through `write` (one transaction, idempotent). */
import type pg from "pg";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { recordEvent } from "../events/events.service.ts";
import { type WriteDeps, write } from "../idempotency/write-handler.ts";
import { ifMatch } from "../preconditions.ts";
import { type TicketBatchDeps, upsertTickets } from "./ticket-batch.ts";
import * as tickets from "./tickets.service.ts";

export function ticketHandlers(
  given: WriteDeps & Omit<TicketBatchDeps, "record"> & { pool: pg.Pool },
): OperationHandlers {
  // Each write records its events in the change stream's outbox (events.service.ts).
  const deps = { ...given, record: recordEvent };
  const { pool } = deps;
  return {
    Tickets_list: async ({ principal, query }) => ({
      status: 200,
      body: await tickets.listTickets(pool, principal.workspaceId, query),
    }),
    Tickets_get: async ({ principal, params }) => ({
      status: 200,
      body: await tickets.getTicket(pool, principal.workspaceId, params.ticket_id),
    }),
    Tickets_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await tickets.createTicket(db, principal.workspaceId, body, deps.record),
    })),
    Tickets_batchUpsert: write(deps, async ({ principal, body, request }, db) => ({
      status: 200,
      body: await upsertTickets(db, principal.workspaceId, body, request.id, deps),
    })),
    Tickets_update: write(deps, async ({ principal, params, body, request }, db) => ({
      status: 200,
      body: await tickets.updateTicket(
        db,
        principal.workspaceId,
        params.ticket_id,
        body,
        deps.record,
        ifMatch(request.header("if-match")),
      ),
    })),
  };
}
