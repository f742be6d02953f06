/** All SQL of resets of the test data (migration 0018: the table and `reset_test_data()`). */
import type { components } from "@service/spec/schema";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";

type Counts = components["schemas"]["TestDataResetCounts"];

export interface ResetRow {
  id: string;
  workspace_id: string;
  status: components["schemas"]["TestDataResetStatus"];
  deleted: Counts | null;
  created_at: Date;
  completed_at: Date | null;
}

/**
 * A new pending reset of the scope, or the one already pending or running (`created` says which). Each statement
 * sees what committed before it: when the one in the way ends between the two, the insert is tried again.
 */
export async function insertReset(
  db: Queryable,
  scope: string,
  id: string,
): Promise<{ row: ResetRow; created: boolean }> {
  // A reset whose job died without a word (its process was killed) would hold the place for good: past the job's
  // expiry (RESET_EXPIRY_SECONDS in test-data.service.ts) it has failed.
  await db.query(
    `UPDATE test_data_resets SET status = 'failed', completed_at = now()
      WHERE workspace_id = $1 AND status IN ('pending', 'running') AND created_at < now() - interval '15 minutes'`,
    [scope],
  );
  for (;;) {
    const { rows } = await db.query<ResetRow>(
      `INSERT INTO test_data_resets (id, workspace_id, status) VALUES ($1, $2, 'pending')
       ON CONFLICT (workspace_id) WHERE status IN ('pending', 'running') DO NOTHING RETURNING *`,
      [id, scope],
    );
    if (rows[0]) return { row: rows[0], created: true };
    const { rows: active } = await db.query<ResetRow>(
      "SELECT * FROM test_data_resets WHERE workspace_id = $1 AND status IN ('pending', 'running')",
      [scope],
    );
    if (active[0]) return { row: active[0], created: false };
  }
}

export async function findReset(db: Queryable, scope: string, id: string): Promise<ResetRow> {
  const { rows } = await db.query<ResetRow>("SELECT * FROM test_data_resets WHERE workspace_id = $1 AND id = $2", [
    scope,
    id,
  ]);
  if (!rows[0]) {
    throw new AppError("TEST_DATA_RESET_NOT_FOUND", { detail: `No reset ${id} of this workspace's test data.` });
  }
  return rows[0];
}

/** Moves a reset on; a finished one keeps its counts and time. */
export async function markReset(
  db: Queryable,
  id: string,
  status: "running" | "succeeded" | "failed",
  deleted: Counts | null = null,
): Promise<void> {
  await db.query(
    `UPDATE test_data_resets SET status = $2, deleted = $3,
            completed_at = CASE WHEN $2 IN ('succeeded', 'failed') THEN now() END
      WHERE id = $1`,
    [id, status, deleted === null ? null : JSON.stringify(deleted)],
  );
}

/** One call of `reset_test_data()`: see its comment in migration 0018. */
export async function deleteTestData(db: Queryable, scope: string, restart: boolean): Promise<Counts> {
  const { rows } = await db.query<{ deleted: Counts }>("SELECT reset_test_data($1, $2) AS deleted", [scope, restart]);
  return (rows[0] as { deleted: Counts }).deleted;
}
