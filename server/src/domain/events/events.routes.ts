/**
 * HTTP handlers of `/v1/events`, `/v1/event-types` and the console's `/api/workspace/events`: reads only (events are written by the changes they describe).
 * A stream read with `wait` that finds nothing waits for its workspace's next event without a database connection
 * (stream-waiters.ts), then reads again, until an event comes or the time is up.
 */
import type pg from "pg";
import { AppError } from "../../errors.ts";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { eventTypeCatalog } from "./event-types.ts";
import * as events from "./events.service.ts";
import type { StreamWaiters } from "./stream-waiters.ts";

const SECOND_MS = 1_000;

export function eventHandlers(deps: {
  pool: pg.Pool;
  waiters: StreamWaiters;
  openapi: Record<string, unknown>;
}): OperationHandlers {
  const { pool, waiters } = deps;
  const catalog = {
    object: "list" as const,
    data: eventTypeCatalog(deps.openapi),
    has_more: false as const,
    next_cursor: null,
  };
  return {
    Events_list: async ({ principal, query, request }) => {
      const { after_sequence, wait, ...filters } = query;
      if (after_sequence === undefined) {
        return { status: 200, body: await events.listEvents(pool, principal.workspaceId, filters) };
      }
      if (filters.cursor !== undefined) {
        throw new AppError("VALIDATION_FAILED", {
          errors: [
            { path: "query.cursor", message: "cannot be combined with after_sequence (follow the last sequence)" },
          ],
        });
      }
      const stream = { ...filters, after_sequence };
      const deadline = Date.now() + (wait ?? 0) * SECOND_MS;
      for (;;) {
        const since = waiters.mark();
        const page = await events.listStream(pool, principal.workspaceId, stream);
        const left = deadline - Date.now();
        if (page.data.length > 0 || left <= 0 || request.closed.aborted) return { status: 200, body: page };
        await waiters.wait(principal.workspaceId, left, request.closed, since);
      }
    },
    Events_get: async ({ principal, params }) => ({
      status: 200,
      body: await events.getEvent(pool, principal.workspaceId, params.event_id),
    }),
    EventTypes_list: async () => ({ status: 200, body: catalog }),
    // The console's page of events: the session's workspace, in the mode its switch chose (http/authenticate.ts).
    WorkspaceEvents_list: async ({ principal, query }) => ({
      status: 200,
      body: await events.listEvents(pool, principal.workspaceId, query),
    }),
  };
}
