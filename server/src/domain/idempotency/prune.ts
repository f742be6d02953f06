/**
 * Deletes expired idempotency keys. A key answers for 24 hours (idempotency.ts); after that the look-up ignores it,
 * but nothing else removes its row, and a table that only grows makes every write's index insert and every vacuum
 * slower. The worker prunes every minute, a bounded batch at a time (jobs/pruning.ts). `FOR UPDATE SKIP LOCKED` passes
 * over a key that a write is reusing right now (the upsert in idempotency.ts), so pruning never waits for a write, and
 * a write waits at most for one batch, never for the whole backlog (one big DELETE would hold every expired row's lock
 * until it ends).
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Queryable } from "../../db/queryable.ts";
import { type PruneOptions, type PruneResult, pruneInBatches, registerPruningJob } from "../../jobs/pruning.ts";

export const PRUNE_QUEUE = "idempotency-prune";
/** pg-boss cron (UTC): every minute, so each run has about a minute of expired keys to delete. */
export const PRUNE_CRON = "* * * * *";

/** Under the cron interval, so that a run over a large backlog ends before the next one is due. */
const PRUNE_RUN_BUDGET_MS = 50_000;

/**
 * One batch: the oldest `$1` expired keys that no transaction holds, by the expiry index, deleted by their physical
 * address (ctid is stable while the row is locked by this very statement).
 */
export const PRUNE_BATCH_SQL = `DELETE FROM idempotency_keys
 WHERE ctid = ANY(ARRAY(
   SELECT ctid FROM idempotency_keys
    WHERE expires_at <= now()
    ORDER BY expires_at
    LIMIT $1
    FOR UPDATE SKIP LOCKED))`;

/**
 * @example
 * const { deleted, batches } = await pruneExpiredKeys(pool, { batchSize: 1_000 });
 */
export function pruneExpiredKeys(db: Queryable, options: PruneOptions = {}): Promise<PruneResult> {
  return pruneInBatches(async (limit) => (await db.query(PRUNE_BATCH_SQL, [limit])).rowCount ?? 0, {
    budgetMs: PRUNE_RUN_BUDGET_MS,
    ...options,
  });
}

/**
 * Schedules and works the pruning job in worker processes. The queue is `stately` (at most one job queued and one
 * active across every worker), so runs never overlap and missed minutes do not pile up.
 */
export function registerIdempotencyPruning(
  queue: PgBoss,
  deps: { pool: pg.Pool; logger: Logger },
  options: { work: boolean },
): Promise<{ stop(): void }> {
  return registerPruningJob(queue, deps.logger, {
    work: options.work,
    name: PRUNE_QUEUE,
    cron: PRUNE_CRON,
    // A worker killed mid-run: the job expires and the next run starts; batches already deleted stay deleted.
    expireInSeconds: Math.ceil(PRUNE_RUN_BUDGET_MS / 1000) + 60,
    what: "expired idempotency keys",
    run: (signal) => pruneExpiredKeys(deps.pool, { signal }),
  });
}
