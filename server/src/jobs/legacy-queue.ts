/**
 * The upgrade from pg-boss 10. Its schema (`pgboss`) cannot be migrated in place to pg-boss 12, which installs its own
 * (queue.ts). At the first start after the upgrade, one process moves what the old schema still had to do into the new
 * one, with the same job ids, then drops the old schema, all in one transaction: a crash midway leaves the old schema
 * whole, and the next start moves it again. Processes that start together wait for the first (an advisory lock), then
 * find nothing left to move.
 *
 * Remove when: no database of a release before the pg-boss 12 upgrade remains (every deployment has started once on a
 * release with this move); then also `enqueuePendingDeliveries` (delivery-jobs.ts) and `pendingDeliveries`
 * (deliveries.store.ts), which serve only it.
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../db/transaction.ts";
import { onClient } from "./queue.ts";

const LEGACY_SCHEMA = "pgboss";
const UPGRADE_LOCK_ID = 726_354_003;

export interface LegacyMove {
  /** The queues whose waiting jobs move, each to the queue of the same name. */
  queues: readonly string[];
  /** Moves what was not a pg-boss 10 job but is a job now (the deliveries, due in their table). */
  alsoMove?: (client: pg.PoolClient) => Promise<number>;
}

/** Whether `pgboss` holds pg-boss 10 or older: its `version` table says so (pg-boss 12 never uses that schema here). */
async function legacyVersion(client: pg.PoolClient): Promise<number | undefined> {
  const { rows } = await client.query<{ present: boolean }>(
    `SELECT to_regclass('${LEGACY_SCHEMA}.version') IS NOT NULL AS present`,
  );
  if (!rows[0]?.present) return undefined;
  const version = await client.query<{ version: number }>(`SELECT version FROM ${LEGACY_SCHEMA}.version`);
  return version.rows[0]?.version;
}

/**
 * Moves the waiting jobs (created, retry, or active when the old workers stopped) of `move.queues`, then whatever
 * `move.alsoMove` moves, and drops the old schema. Returns how many jobs moved, or undefined when there was no old
 * schema.
 */
export async function moveLegacyQueue(
  boss: PgBoss,
  pool: pg.Pool,
  move: LegacyMove,
): Promise<{ jobs: number; more: number } | undefined> {
  return withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [UPGRADE_LOCK_ID]);
    if ((await legacyVersion(client)) === undefined) return undefined;
    let jobs = 0;
    for (const name of move.queues) {
      const { rows } = await client.query<{ id: string; data: object | null; start_after: Date }>(
        `SELECT id, data, start_after FROM ${LEGACY_SCHEMA}.job
          WHERE name = $1 AND state IN ('created', 'retry', 'active') ORDER BY created_on`,
        [name],
      );
      if (rows.length === 0) continue;
      await boss.insert(
        name,
        rows.map((row) => ({ id: row.id, data: row.data ?? {}, startAfter: row.start_after })),
        { db: onClient(client) },
      );
      jobs += rows.length;
    }
    const more = (await move.alsoMove?.(client)) ?? 0;
    await client.query(`DROP SCHEMA ${LEGACY_SCHEMA} CASCADE`);
    return { jobs, more };
  });
}
