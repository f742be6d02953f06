/**
 * Deletes expired idempotency keys. A key answers for 24 hours (idempotency.ts); after that the look-up ignores it,
 * but nothing else removes its row, and a table that only grows makes every write's index insert and every vacuum
 * slower. The worker prunes on a pg-boss schedule, a bounded batch at a time:
 *
 * - each batch is its own short statement (autocommit), so the locks it holds and the WAL it writes are bounded, and
 *   a worker killed mid-run loses nothing;
 * - `FOR UPDATE SKIP LOCKED` passes over a key that a write is reusing right now (the upsert in idempotency.ts),
 *   so pruning never waits for a write, and a write waits at most for one batch, never for the whole backlog (one
 *   big DELETE would hold every expired row's lock until it ends);
 * - a short pause between batches leaves the disk and the connection to the API's writes;
 * - a run ends when a batch comes back short, or when its time budget is spent: the next run goes on from there.
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Db } from "../../db/db.ts";
import { defineQueue } from "../../jobs/queue.ts";

export const PRUNE_QUEUE = "idempotency-prune";
/** pg-boss cron (UTC): every minute, so each run has about a minute of expired keys to delete. */
export const PRUNE_CRON = "* * * * *";
export const PRUNE_BATCH_SIZE = 1_000;
const PRUNE_PAUSE_MS = 20;
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

export interface PruneOptions {
  batchSize?: number;
  /** Pause between two batches, in ms. */
  pauseMs?: number;
  /** Stop starting batches after this long, in ms; the rest waits for the next run. */
  budgetMs?: number;
  /** Stops the run before its next batch (the worker is stopping). */
  signal?: AbortSignal;
  /** Called after each batch with the rows it deleted (progress for the benchmark and the log). */
  onBatch?: (deleted: number) => void;
}

export interface PruneResult {
  deleted: number;
  batches: number;
  durationMs: number;
  /** False when the budget or the signal ended the run with expired keys possibly left. */
  complete: boolean;
}

/**
 * @example
 * const { deleted, batches } = await pruneExpiredKeys(pool, { batchSize: 1_000 });
 */
export async function pruneExpiredKeys(db: Db, options: PruneOptions = {}): Promise<PruneResult> {
  const batchSize = options.batchSize ?? PRUNE_BATCH_SIZE;
  const pauseMs = options.pauseMs ?? PRUNE_PAUSE_MS;
  const budgetMs = options.budgetMs ?? PRUNE_RUN_BUDGET_MS;
  const started = performance.now();
  let deleted = 0;
  let batches = 0;
  for (;;) {
    if (options.signal?.aborted || performance.now() - started > budgetMs) {
      return { deleted, batches, durationMs: Math.round(performance.now() - started), complete: false };
    }
    const { rowCount } = await db.query(PRUNE_BATCH_SQL, [batchSize]);
    const count = rowCount ?? 0;
    deleted += count;
    batches += 1;
    options.onBatch?.(count);
    if (count < batchSize) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return { deleted, batches, durationMs: Math.round(performance.now() - started), complete: true };
}

/**
 * Schedules and works the pruning job in worker processes. The queue is `stately` (at most one job queued and one
 * active across every worker), so runs never overlap and missed minutes do not pile up.
 */
export async function registerIdempotencyPruning(
  queue: PgBoss,
  deps: { pool: pg.Pool; logger: Logger },
  options: { work: boolean },
): Promise<{ stop(): void }> {
  const stopping = new AbortController();
  if (!options.work) return { stop: () => undefined };
  await defineQueue(queue, PRUNE_QUEUE, {
    policy: "stately",
    // A worker killed mid-run: the job expires and the next run starts; batches already deleted stay deleted.
    expireInSeconds: Math.ceil(PRUNE_RUN_BUDGET_MS / 1000) + 60,
    retryLimit: 0,
  });
  await queue.schedule(PRUNE_QUEUE, PRUNE_CRON);
  await queue.work(PRUNE_QUEUE, { pollingIntervalSeconds: 10 }, async () => {
    try {
      const result = await pruneExpiredKeys(deps.pool, { signal: stopping.signal });
      if (result.deleted > 0) deps.logger.info(result, "expired idempotency keys pruned");
    } catch (error) {
      // pg-boss records the failed job without a log line; the next minute's run tries again.
      deps.logger.warn({ err: error }, "pruning expired idempotency keys failed");
      throw error;
    }
  });
  return { stop: () => stopping.abort() };
}
