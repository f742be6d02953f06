/**
 * The shape of every pruning job (expired idempotency keys, events past 30 days): a pg-boss cron schedule in worker
 * processes, on a `stately` queue (at most one job queued and one active across every worker, so runs never overlap
 * and missed runs do not pile up), each run deleting a bounded batch at a time:
 *
 * - each batch is its own short statement, so the locks it holds and the WAL it writes are bounded, and a worker
 *   killed mid-run loses nothing;
 * - a short pause between batches leaves the disk and the connections to the API's writes;
 * - a run ends when a batch comes back short, or when its time budget is spent: the next run goes on from there.
 */
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { defineQueue } from "./queue.ts";

export const PRUNE_BATCH_SIZE = 1_000;
const PRUNE_PAUSE_MS = 20;
const DEFAULT_RUN_BUDGET_MS = 50_000;

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
 * Runs `batch` (which deletes at most `limit` rows and says how many) until one comes back short, pausing between
 * batches, within the run's time budget: the loop of every pruning job (idempotency keys, events past 30 days).
 */
export async function pruneInBatches(
  batch: (limit: number) => Promise<number>,
  options: PruneOptions = {},
): Promise<PruneResult> {
  const batchSize = options.batchSize ?? PRUNE_BATCH_SIZE;
  const pauseMs = options.pauseMs ?? PRUNE_PAUSE_MS;
  const budgetMs = options.budgetMs ?? DEFAULT_RUN_BUDGET_MS;
  const started = performance.now();
  let deleted = 0;
  let batches = 0;
  for (;;) {
    if (options.signal?.aborted || performance.now() - started > budgetMs) {
      return { deleted, batches, durationMs: Math.round(performance.now() - started), complete: false };
    }
    const count = await batch(batchSize);
    deleted += count;
    batches += 1;
    options.onBatch?.(count);
    if (count < batchSize) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return { deleted, batches, durationMs: Math.round(performance.now() - started), complete: true };
}

export interface PruningJob {
  work: boolean;
  /** The queue's name. */
  name: string;
  /** pg-boss cron (UTC). */
  cron: string;
  /** Past this, a run whose worker died expires and the next one starts. */
  expireInSeconds: number;
  /** What a run deletes, for its log lines. */
  what: string;
  run(signal: AbortSignal): Promise<PruneResult>;
}

/** Schedules and works one pruning job in worker processes; `stop()` ends a run before its next batch. */
export async function registerPruningJob(queue: PgBoss, logger: Logger, job: PruningJob): Promise<{ stop(): void }> {
  const stopping = new AbortController();
  if (!job.work) return { stop: () => undefined };
  await defineQueue(queue, job.name, { policy: "stately", expireInSeconds: job.expireInSeconds, retryLimit: 0 });
  await queue.schedule(job.name, job.cron);
  await queue.work(job.name, { pollingIntervalSeconds: 10 }, async () => {
    try {
      const result = await job.run(stopping.signal);
      if (result.deleted > 0) logger.info(result, `${job.what} pruned`);
    } catch (error) {
      // pg-boss records the failed job without a log line; the next run tries again.
      logger.warn({ err: error }, `pruning ${job.what} failed`);
      throw error;
    }
  });
  return { stop: () => stopping.abort() };
}
