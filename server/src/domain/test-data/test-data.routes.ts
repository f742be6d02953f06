/** HTTP handlers of `/v1/test-data` (test keys only: the authenticator refuses a live one, `x-test-mode-only`). */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { type WriteDeps, write } from "../idempotency/write-handler.ts";
import * as resets from "./test-data.service.ts";

export function testDataHandlers(deps: WriteDeps & { pool: pg.Pool; queue: PgBoss }): OperationHandlers {
  return {
    TestData_reset: write(deps, async ({ principal }, db) => {
      const reset = await resets.requestReset(deps.queue, db, principal.workspaceId);
      return { status: 202, headers: { Location: `/v1/test-data/resets/${reset.id}` }, body: reset };
    }),
    TestData_getReset: async ({ principal, params }) => ({
      status: 200,
      body: await resets.getReset(deps.pool, principal.workspaceId, params.reset_id),
    }),
  };
}
