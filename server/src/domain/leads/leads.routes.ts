/** HTTP handlers of `/v1/leads`. Reads use the pool; writes run through `write` (one transaction, idempotent). */
import type pg from "pg";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { recordEvent, recordEvents } from "../events/events.service.ts";
import { type WriteDeps, write } from "../idempotency/write-handler.ts";
import { ifMatch } from "../preconditions.ts";
import { type LeadBatchDeps, upsertLeads } from "./lead-batch.ts";
import { deleteLeadAndDetach } from "./lead-deletion.ts";
import * as leads from "./leads.service.ts";

export function leadHandlers(given: WriteDeps & Omit<LeadBatchDeps, "record"> & { pool: pg.Pool }): OperationHandlers {
  // Each write records its events in the change stream's outbox (events.service.ts).
  const deps = { ...given, record: recordEvent };
  const { pool } = deps;
  return {
    Leads_list: async ({ principal, query }) => ({
      status: 200,
      body: await leads.listLeads(pool, principal.workspaceId, query),
    }),
    Leads_get: async ({ principal, params }) => ({
      status: 200,
      body: await leads.getLead(pool, principal.workspaceId, params.lead_id),
    }),
    Leads_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await leads.createLead(db, principal.workspaceId, body, deps.record),
    })),
    Leads_batchUpsert: write(deps, async ({ principal, body, request }, db) => ({
      status: 200,
      body: await upsertLeads(db, principal.workspaceId, body, request.id, deps),
    })),
    Leads_update: write(deps, async ({ principal, params, body, request }, db) => ({
      status: 200,
      body: await leads.updateLead(
        db,
        principal.workspaceId,
        params.lead_id,
        body,
        deps.record,
        ifMatch(request.header("if-match")),
      ),
    })),
    Leads_delete: write(deps, async ({ principal, params, request }, db) => {
      const expect = ifMatch(request.header("if-match"));
      await deleteLeadAndDetach(db, principal.workspaceId, params.lead_id, recordEvents, expect);
      return { status: 204 };
    }),
  };
}
