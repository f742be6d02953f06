/** HTTP handlers of `/v1/events`: reads only (events are written by the changes they describe). */
import type pg from "pg";
import type { OperationHandlers } from "../../http/handler-types.ts";
import * as events from "./events.service.ts";

export function eventHandlers(deps: { pool: pg.Pool }): OperationHandlers {
  const { pool } = deps;
  return {
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
