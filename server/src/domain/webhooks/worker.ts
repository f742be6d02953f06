/**
 * The delivery worker: pg-boss workers take the jobs of DELIVERY_QUEUE (delivery-jobs.ts), each one attempt of one
 * delivery; this module attempts it (deliver.ts) and records what came of it.
 *
 * What pg-boss does, and the failure it guards:
 *   - `work()` with `localConcurrency` workers of small batches: attempts run side by side, and a slow receiver holds
 *     only the worker that took it, never the deliveries behind it.
 *   - LISTEN/NOTIFY wakes a worker at the commit that made a job (the queue is `notify`); the poll finds what no
 *     notification announced (a retry that came due, a job made while the LISTEN connection was down).
 *   - Heartbeats and expiry hand the job of a worker that died mid-attempt (SIGKILL, out of memory, a lost machine) to
 *     another, and pg-boss's own retry makes the attempt again: at least once; receivers deduplicate by `webhook-id`.
 *
 * What stays ours, beside it:
 *   - The schedule (schedule.ts) owns the retries of a receiver's failures: one transaction records the attempt in
 *     the deliveries log, completes its job (fenced to this claim of it) and, when another attempt is due, enqueues its
 *     job with the schedule's delay as `startAfter`. pg-boss's retry policy knows nothing of Retry-After, 410 or the
 *     5-day rule.
 *   - Group commit (db/group-commit.ts): attempts that end while an outcome is being written share the next
 *     transaction, so a busy worker writes a few transactions a second rather than one per attempt.
 *   - The pace (WEBHOOK_MAX_DELIVERIES_PER_SECOND, lib/pacer.ts): a backlog drains at a set rate rather than as fast
 *     as the CPU allows, so that it does not take the machine from the API. pg-boss has concurrency limits, not rates.
 *   - A job's attempt number fences a duplicate: a job whose attempt is already in the log is completed unattempted.
 *   - Each subscription's throttles (throttle.ts says which part is pg-boss's group concurrency and which is ours): an
 *     attempt its pace does not admit yet is put back for its slot, in the same transaction that completes its job.
 *   - The owner hears of a subscription in trouble once per incident (incidents.ts), opened in the outcome's transaction.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { Job, PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { retryConflicts } from "../../db/conflict.ts";
import { groupCommit } from "../../db/group-commit.ts";
import { withTransaction } from "../../db/transaction.ts";
import { isDatabaseUnavailable } from "../../db/unavailable.ts";
import { onClient } from "../../jobs/queue.ts";
import { createPacer } from "../../lib/pacer.ts";
import { createDeliveryHttp, deliver, type Outcome } from "./deliver.ts";
import { abandon, type DeliveryTarget, findTargets, giveUp, saveOutcomes } from "./deliveries.store.ts";
import {
  type AttemptToEnqueue,
  DEAD_DELIVERY_QUEUE,
  DELIVERY_QUEUE,
  type DeliveryJob,
  enqueueAttempts,
} from "./delivery-jobs.ts";
import { noteIncidents } from "./incidents.ts";
import type { UrlCheckOptions } from "./ssrf.ts";
import { admitStarts, groupConcurrency, sameConcurrency, type Throttle, throttleOf } from "./throttle.ts";

/** Attempts in flight at most, side by side (the HTTP agent keeps up to 50 sockets a host). */
const MAX_IN_FLIGHT = 50;
/** Jobs one pg-boss worker takes at a time: a few, so that a fetch is shared, and a slow receiver holds few. */
const BATCH_SIZE = 5;
/** A retry due sooner than this gets a timer that wakes this process's workers then, rather than at the next poll. */
const WAKE_TIMER_LIMIT_MS = 5 * 60_000;

export interface WorkerOptions {
  queue: PgBoss;
  pool: pg.Pool;
  logger: Logger;
  urls: UrlCheckOptions;
  schedule: readonly number[];
  /** One attempt's timeout (WEBHOOK_TIMEOUT_MS; its default lives in config.ts). */
  timeoutMs: number;
  /** How often an idle worker looks for due jobs besides its wake-ups (WEBHOOK_POLL_INTERVAL_MS, at least 500). */
  pollIntervalMs: number;
  /** The most attempts this process starts a second (WEBHOOK_MAX_DELIVERIES_PER_SECOND). */
  maxPerSecond: number;
}

/**
 * How many pg-boss workers take how many jobs each. At most MAX_IN_FLIGHT attempts, and no more than a second's worth
 * of the pace: a job waits for the pace inside its handler, and must not wait long enough to expire.
 */
function concurrency(maxPerSecond: number): { localConcurrency: number; batchSize: number } {
  const inFlight = Math.min(MAX_IN_FLIGHT, maxPerSecond);
  const batchSize = Math.min(BATCH_SIZE, inFlight);
  return { localConcurrency: Math.ceil(inFlight / batchSize), batchSize };
}

/** The job of an outcome was no longer this worker's to complete: the outcome is not written. */
class ClaimLost extends Error {
  constructor() {
    super("a delivery job's claim was lost before its outcome was written");
    this.name = "ClaimLost";
  }
}

/** A job done with: its attempt made (`outcome`), or put back for its subscription's pace (`retryAt`). */
type Settled = { job: Job<DeliveryJob>; webhookId: string; throttle: Throttle } & (
  | { outcome: Outcome }
  | { retryAt: Date }
);

/** The attempt that follows an outcome, or the same attempt put back: nothing when the delivery is settled. */
function following(item: Settled): AttemptToEnqueue[] {
  const { job, webhookId, throttle } = item;
  const base = { deliveryId: job.data.delivery_id, webhookId, throttle };
  if ("retryAt" in item) {
    return [{ ...base, attempt: job.data.attempt, at: item.retryAt, deferral: (job.data.deferral ?? 0) + 1 }];
  }
  const { outcome } = item;
  if (outcome.next.status !== "pending") return [];
  return [{ ...base, attempt: outcome.attempt.number + 1, delaySeconds: outcome.next.delaySeconds }];
}

export async function startDeliveryWorker(options: WorkerOptions): Promise<{ stop(): Promise<void> }> {
  const { queue, pool, logger, schedule } = options;
  const http = createDeliveryHttp(options.urls, options.timeoutMs);
  const pacer = createPacer(options.maxPerSecond);
  const stopping = new AbortController();
  let workerId: string | undefined;

  // One transaction for the outcomes that arrive together: the attempts in the log, their jobs completed, and the
  // jobs of the retries they call for. Its statements follow the lock order (docs/webhook-deliveries.md): the
  // subscriptions and deliveries (saveOutcomes), the incidents, then pg-boss's rows. A conflict that still ends it (a
  // deadlock with a statement outside the order) runs it again: an attempt made is an attempt recorded.
  const writeOutcomes = (items: Settled[]) =>
    retryConflicts(() =>
      withTransaction(pool, async (client) => {
        const outcomes = items.flatMap((item) => ("outcome" in item ? [item.outcome] : []));
        await saveOutcomes(client, outcomes);
        await noteIncidents(queue, client, outcomes);
        // The completion fences the write to the claims still held: a job that expired while its attempt ran was
        // handed to another worker, and its outcome must not land (the group commit then writes the others alone).
        const completed = (await queue.complete(
          DELIVERY_QUEUE,
          items.map((item) => item.job),
          null,
          { db: onClient(client) },
        )) as { affected?: number };
        if (completed.affected !== items.length) throw new ClaimLost();
        await enqueueAttempts(queue, client, items.flatMap(following));
      }),
    );
  const record = groupCommit(writeOutcomes, { maxItems: MAX_IN_FLIGHT, isTransient: isDatabaseUnavailable });

  const wakeAt = (delaySeconds: number) => {
    const ms = delaySeconds * 1000 + 20;
    if (ms > WAKE_TIMER_LIMIT_MS || stopping.signal.aborted) return;
    setTimeout(() => workerId && queue.notifyWorker(workerId), ms).unref();
  };

  const attempt = async (job: Job<DeliveryJob>, target: DeliveryTarget, retryAt: Date | null): Promise<void> => {
    const throttle = throttleOf(target);
    if (retryAt) {
      await record({ job, webhookId: target.webhook_id, throttle, retryAt });
      wakeAt((retryAt.getTime() - Date.now()) / 1000);
      return;
    }
    const delay = pacer.delayMs();
    pacer.take(1);
    if (delay > 0) await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
    // Stopping while it waited for the pace: not sent now, all at once; pg-boss gives the job to the next worker.
    if (stopping.signal.aborted) throw new Error("the worker stopped before this attempt's turn");
    const outcome = await deliver(target, http, schedule);
    await record({ job, webhookId: target.webhook_id, throttle, outcome });
    if (outcome.next.status === "pending") wakeAt(outcome.next.delaySeconds);
  };

  /**
   * When each attempt may start: null now, else the time its job is put back for. A job made under a concurrency the
   * subscription no longer has goes back at once, under the one it has now; a paced subscription's attempt waits for
   * its window (throttle.ts).
   */
  const admit = async (items: { job: Job<DeliveryJob>; target: DeliveryTarget }[]): Promise<(Date | null)[]> => {
    const answers: (Date | null)[] = items.map(({ job, target }) =>
      sameConcurrency(job.groupTier, throttleOf(target)) ? null : new Date(),
    );
    const paced = items.flatMap(({ target }, i) =>
      answers[i] === null && target.max_deliveries_per_second !== null
        ? [{ i, webhookId: target.webhook_id, perSecond: target.max_deliveries_per_second }]
        : [],
    );
    const admitted = await retryConflicts(() => admitStarts(pool, paced));
    paced.forEach(({ i }, k) => {
      answers[i] = admitted[k] ?? null;
    });
    return answers;
  };

  const handle = async (jobs: Job<DeliveryJob>[]): Promise<void> => {
    const targets = await findTargets(
      pool,
      jobs.map((job) => job.data.delivery_id),
    );
    // Gone (its subscription was deleted), settled, or not the attempt that follows the log's last (a duplicate job
    // after a crash): nothing to send. pg-boss completes the job when the handler returns.
    const due = jobs.flatMap((job) => {
      const target = targets.get(job.data.delivery_id);
      return target?.status === "pending" && target.attempt_count === job.data.attempt - 1 ? [{ job, target }] : [];
    });
    const abandoned = due.filter(({ target }) => !target.enabled);
    await Promise.all(abandoned.map(({ target }) => abandon(pool, target.id)));
    const live = due.filter(({ target }) => target.enabled);
    const retryAts = await admit(live);
    const results = await Promise.allSettled(
      live.map(({ job, target }, i) => attempt(job, target, retryAts[i] ?? null)),
    );
    // A worker whose last fetch came back short (its subscription's group at its limit) sleeps until the poll or a
    // new job's NOTIFY; the room these attempts free is for the jobs still ready (a retry's, a backlog's): fetch now.
    if (workerId) queue.notifyWorker(workerId);
    const failed = results.find((result) => result.status === "rejected");
    if (failed) {
      // Not recorded: pg-boss fails the batch's unrecorded jobs (those recorded are completed already) and tries them
      // again; while the database is down, their claims expire and they are tried again then.
      const expected = isDatabaseUnavailable(failed.reason) || failed.reason instanceof ClaimLost;
      const level = expected ? "warn" : "error";
      logger[level]({ err: failed.reason }, "delivery attempt not recorded");
      throw failed.reason;
    }
  };

  const pollSeconds = options.pollIntervalMs / 1000;
  workerId = await queue.work<DeliveryJob>(
    DELIVERY_QUEUE,
    {
      ...concurrency(options.maxPerSecond),
      // Each subscription's concurrency, counted across every worker process (throttle.ts).
      ...groupConcurrency(),
      // While batches come back full, fetch again at once: a backlog drains without waiting for the poll.
      burstWhenBatchFull: true,
      pollingIntervalSeconds: pollSeconds,
      // With LISTEN/NOTIFY pg-boss polls at this interval instead, after every fetch: it bounds how late a retry
      // enqueued by another process (or before a restart) starts.
      notifyPollingIntervalSeconds: pollSeconds,
    },
    handle,
  );

  // A job that failed every time pg-boss tried it (a poison job: each try crashed or could not be recorded) settles
  // its delivery as failed, seen in the deliveries log and redeliverable, rather than leaving it pending forever.
  const deadPolling = { pollingIntervalSeconds: pollSeconds, notifyPollingIntervalSeconds: pollSeconds };
  await queue.work<DeliveryJob>(DEAD_DELIVERY_QUEUE, deadPolling, async (jobs) => {
    for (const job of jobs) {
      const settled = await giveUp(pool, job.data.delivery_id, job.data.attempt);
      if (settled) {
        logger.error(
          { delivery_id: job.data.delivery_id, attempt: job.data.attempt },
          "delivery given up: its attempt's job failed every time it was tried",
        );
      }
    }
  });

  return {
    async stop() {
      stopping.abort();
      await queue.offWork(DEAD_DELIVERY_QUEUE, { wait: true });
      await queue.offWork(DELIVERY_QUEUE, { wait: true });
      http.agent.destroy();
    },
  };
}
