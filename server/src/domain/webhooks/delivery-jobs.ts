/**
 * Every attempt of a delivery is a pg-boss job of DELIVERY_QUEUE. The first is enqueued in the transaction that makes
 * the delivery (an event's fan-out, a test send, a redelivery); each further one in the transaction that records the
 * attempt before it, with the schedule's delay as its `startAfter` (worker.ts). So a rolled-back change leaves no job,
 * and a committed delivery always has the job of its next attempt.
 *
 * A job's id is derived from its delivery and attempt number, so enqueueing the same attempt twice (a retried
 * transaction, the upgrade's move, two workers recording one attempt) makes one job.
 */
import { createHash } from "node:crypto";
import type { JobInsert, PgBoss } from "pg-boss";
import type { Db } from "../../db/db.ts";
import { defineQueue, onClient } from "../../jobs/queue.ts";
import { pendingDeliveries } from "./deliveries.store.ts";

export const DELIVERY_QUEUE = "webhook-delivery";
/**
 * Where pg-boss moves a delivery job that failed more than CRASH_RETRY_LIMIT times without its attempt being
 * recorded (worker.ts gives its delivery up there): without it, the delivery would stay pending with no job, never
 * tried and never settled.
 */
export const DEAD_DELIVERY_QUEUE = "webhook-delivery-dead";

/** What a delivery job carries: the attempt it is for. The rest is read from the deliveries log when it runs. */
export interface DeliveryJob {
  delivery_id: string;
  attempt: number;
}

/** An attempt to enqueue: due at once, after `delaySeconds`, or at `at`. */
export interface AttemptToEnqueue {
  deliveryId: string;
  attempt: number;
  delaySeconds?: number;
  at?: Date;
}

/**
 * How many times pg-boss itself tries a job again. Its retry covers only an attempt that ended without being recorded
 * (the worker died, or the database failed under it); a receiver's failure is recorded, and the schedule owns its
 * retries. Not 0: a job whose worker died would then fail at once, and its delivery would never be tried again.
 */
const CRASH_RETRY_LIMIT = 10;
/** pg-boss's heartbeat: a job whose worker stopped beating for this long is handed to another (at least 10). */
const HEARTBEAT_SECONDS = 10;
/** Past an attempt's own timeout: the pace's wait before it (at most a second) and the recording after it. */
const EXPIRY_MARGIN_SECONDS = 15;

/** The job id of attempt `attempt` of delivery `deliveryId`: a UUID (version 8, RFC 9562 §5.8) of their hash. */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  const bytes = createHash("sha256").update(`${deliveryId}/${attempt}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Creates the queues, or sets the options of this version on them. */
export async function defineDeliveryQueue(boss: PgBoss, attemptTimeoutMs: number): Promise<void> {
  // A queue's dead letter queue must exist before it names it.
  await defineQueue(boss, DEAD_DELIVERY_QUEUE, { notify: true, retryLimit: CRASH_RETRY_LIMIT, retryBackoff: true });
  await defineQueue(boss, DELIVERY_QUEUE, {
    deadLetter: DEAD_DELIVERY_QUEUE,
    // A new job wakes the workers through LISTEN/NOTIFY at its commit.
    notify: true,
    expireInSeconds: Math.ceil(attemptTimeoutMs / 1000) + EXPIRY_MARGIN_SECONDS,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    retryLimit: CRASH_RETRY_LIMIT,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 300,
    // A retry may wait up to 24 h (schedule.ts); a job is kept well past that before pg-boss drops it unstarted.
    retentionSeconds: 7 * 24 * 3600,
    // The deliveries log keeps the history; a finished job is only pg-boss's.
    deleteAfterSeconds: 3600,
  });
}

/** Enqueues attempts in the transaction running on `db` (nothing when the list is empty). */
export async function enqueueAttempts(boss: PgBoss, db: Db, attempts: readonly AttemptToEnqueue[]): Promise<void> {
  if (attempts.length === 0) return;
  const jobs: JobInsert<DeliveryJob>[] = attempts.map(({ deliveryId, attempt, delaySeconds, at }) => ({
    id: deliveryJobId(deliveryId, attempt),
    data: { delivery_id: deliveryId, attempt },
    ...(at ? { startAfter: at } : delaySeconds ? { startAfter: delaySeconds } : {}),
  }));
  await boss.insert(DELIVERY_QUEUE, jobs, { db: onClient(db) });
}

/** Rows a single insert carries at most, when a backlog is enqueued at once. */
const ENQUEUE_CHUNK = 5_000;

/**
 * Enqueues the next attempt of every pending delivery, due when the log says: the upgrade from pg-boss 10, whose
 * deliveries were queued in their own table (jobs/legacy-queue.ts). Returns how many.
 */
export async function enqueuePendingDeliveries(boss: PgBoss, client: Db): Promise<number> {
  const pending = await pendingDeliveries(client);
  for (let start = 0; start < pending.length; start += ENQUEUE_CHUNK) {
    await enqueueAttempts(
      boss,
      client,
      pending.slice(start, start + ENQUEUE_CHUNK).map((delivery) => ({
        deliveryId: delivery.id,
        attempt: delivery.attempt_count + 1,
        at: delivery.next_attempt_at ?? undefined,
      })),
    );
  }
  return pending.length;
}
