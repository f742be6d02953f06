/**
 * The delivery worker: only the loop. It claims due deliveries (deliveries.store.ts), attempts each (deliver.ts) and
 * records the outcomes (several in one statement when they come faster than one at a time). The `deliveries` table is
 * the queue; no job queue stands in between.
 *
 * Each mechanism, and the failure it guards:
 *   - Retries have one owner, the schedule (schedule.ts): a failed attempt sets the delivery's `next_attempt_at`
 *     (5 s … 24 h, jittered, at least the receiver's Retry-After) and the delivery is due again then. It guards a
 *     receiver that is down, slow or refusing. Nothing else retries a delivery.
 *   - Recovery has one path, the lease: a claim sets `leased_until` to the attempt's deadline plus
 *     LEASE_MARGIN_SECONDS, and recording the outcome clears it (deliver.ts ends every attempt at its deadline, so a
 *     live attempt never outlasts its lease). A lease that runs out means an attempt that was never recorded: the
 *     process died mid-attempt (SIGKILL, out of memory, a lost machine) or PostgreSQL failed between the POST and its
 *     record. The delivery is then due again and the next claim, in any process, takes it: at least once, and
 *     receivers deduplicate by `webhook-id`.
 *   - The claim's `FOR UPDATE SKIP LOCKED` guards against two processes taking the same delivery.
 *   - The poll (WEBHOOK_POLL_INTERVAL_MS, 1 s by default) guards against a missed wake-up: a notification sent while
 *     the LISTEN connection was down, or a retry or a run-out lease that no timer of this process knows of (another
 *     process's, or from before a restart).
 *   - The pace (WEBHOOK_MAX_DELIVERIES_PER_SECOND, lib/pacer.ts) guards the API against a backlog: claims start at
 *     most that many attempts a second, and at most MAX_IN_FLIGHT run at once; the next claim is made as soon as
 *     there is room, so a slow receiver holds only its own attempts.
 *   - The wake-ups only save time: `NOTIFY webhook_work` at the commit that made deliveries (a new delivery leaves in
 *     milliseconds, not at the next poll), a timer at the due time of a retry scheduled here, and a drain when the
 *     LISTEN connection comes back.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { Logger } from "pino";
import type { ConnectionSettings } from "../../db/database.ts";
import { groupCommit } from "../../db/group-commit.ts";
import { startListener } from "../../db/listener.ts";
import { isDatabaseUnavailable } from "../../db/unavailable.ts";
import { createPacer } from "../../lib/pacer.ts";
import { createDeliveryHttp, deliver, type Outcome } from "./deliver.ts";
import { abandon, claimDue, type DueDelivery, recordOutcomes, WORK_CHANNEL } from "./deliveries.store.ts";
import type { UrlCheckOptions } from "./ssrf.ts";

/** How long past an attempt's deadline its lease lasts: the time to record the outcome. */
const LEASE_MARGIN_SECONDS = 5;
/** Attempts in flight at most, side by side (the HTTP agent keeps up to 50 sockets a host). */
const MAX_IN_FLIGHT = 50;
/** A claim waits for room for this many, so that a busy worker does not claim its deliveries one at a time. */
const MIN_CLAIM = 10;

export interface WorkerOptions {
  pool: pg.Pool;
  settings: ConnectionSettings;
  logger: Logger;
  urls: UrlCheckOptions;
  schedule: readonly number[];
  /** One attempt's timeout (WEBHOOK_TIMEOUT_MS; its default lives in config.ts). */
  timeoutMs: number;
  /** How often the worker looks for due deliveries besides its wake-ups (WEBHOOK_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** The most attempts this process starts a second (WEBHOOK_MAX_DELIVERIES_PER_SECOND). */
  maxPerSecond: number;
}

export async function startDeliveryWorker(options: WorkerOptions): Promise<{ stop(): Promise<void> }> {
  const { pool, logger, schedule } = options;
  const http = createDeliveryHttp(options.urls, options.timeoutMs);
  const leaseSeconds = options.timeoutMs / 1000 + LEASE_MARGIN_SECONDS;
  let stopped = false;
  let draining: Promise<void> | undefined;
  let again = false;
  const stopping = new AbortController();
  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);
  // A backlog drains at a set pace rather than as fast as the CPU allows, so that it does not take the machine from
  // the API. A claim takes at most a second's worth, and its attempts start together: their outcomes then arrive
  // together and share a write (starting each alone, measured, doubled the CPU per delivery of the worker and of
  // PostgreSQL).
  const pacer = createPacer(options.maxPerSecond);
  const inFlight = new Set<Promise<void>>();
  // Outcomes that arrive while others are written go together in the next statement (group-commit.ts).
  const record = groupCommit((outcomes: Outcome[]) => recordOutcomes(pool, outcomes), {
    maxItems: MAX_IN_FLIGHT,
    isTransient: isDatabaseUnavailable,
  });

  const attempt = async (delivery: DueDelivery): Promise<void> => {
    if (!delivery.enabled) return abandon(pool, delivery.id);
    const outcome = await deliver(delivery, http, schedule);
    await record(outcome);
    // A retry is due at a known time: wake then, rather than at the next poll after it.
    if (outcome.next.status === "pending") setTimeout(wake, outcome.next.delaySeconds * 1000 + 20).unref();
  };

  const start = (delivery: DueDelivery): void => {
    const running = attempt(delivery)
      .catch((error) => {
        // Not recorded: the lease runs out and the delivery is claimed again.
        const level = isDatabaseUnavailable(error) ? "warn" : "error";
        logger[level]({ err: error, delivery: delivery.id }, "delivery attempt not recorded");
      })
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  };

  // A pipeline, not batches: the next claim is made as soon as there is room, so that a slow receiver holds only its
  // own attempts, never the others behind it.
  const drain = async (): Promise<void> => {
    do {
      again = false;
      for (;;) {
        if (stopped) return;
        while (inFlight.size > MAX_IN_FLIGHT - MIN_CLAIM) await Promise.race(inFlight);
        const delay = pacer.delayMs();
        if (delay > 0) await pause(delay);
        if (stopped) return;
        const limit = Math.min(MAX_IN_FLIGHT - inFlight.size, options.maxPerSecond);
        const due = await claimDue(pool, { limit, leaseSeconds });
        if (due.length === 0) break;
        pacer.spend(due.length);
        for (const delivery of due) start(delivery);
      }
    } while (again);
  };

  function wake(): void {
    if (draining) {
      again = true;
      return;
    }
    draining = drain()
      .catch((error) =>
        // While the database is down every poll fails the same way: a warning, and the next poll tries again.
        isDatabaseUnavailable(error)
          ? logger.warn({ err: error }, "delivery worker waiting for the database")
          : logger.error({ err: error }, "delivery worker failed"),
      )
      .finally(() => {
        draining = undefined;
      });
  }

  const listener = await startListener({
    settings: options.settings,
    channel: WORK_CHANNEL,
    name: "service-webhook-worker",
    logger,
    onNotification: wake,
    onConnect: wake,
  });
  const timer = setInterval(wake, options.pollIntervalMs);
  timer.unref();
  wake();

  return {
    async stop() {
      stopped = true;
      stopping.abort();
      clearInterval(timer);
      await draining;
      await Promise.all(inFlight);
      await listener.stop();
      http.agent.destroy();
    },
  };
}
