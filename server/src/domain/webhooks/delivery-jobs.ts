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
import type { Queryable } from "../../db/queryable.ts";
import { defineQueue, onClient } from "../../jobs/queue.ts";
import { pendingDeliveries } from "./deliveries.store.ts";
import { jobGroup, NO_THROTTLE, reserveSlots, type Throttle, throttleOf, throttlesOf } from "./throttle.ts";

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
  /** How many times this attempt was put back for its subscription's pace (throttle.ts); absent: never. */
  deferral?: number;
}

/** An attempt to enqueue: due at once, after `delaySeconds`, or at `at`. */
export interface AttemptToEnqueue {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  /** The subscription's throttles as they are now: its job's group, and the pace of work due at once. */
  throttle: Throttle;
  delaySeconds?: number;
  at?: Date;
  deferral?: number;
  /** pg-boss's priority, higher first (0 when omitted): a recovery's attempts are fetched in its order (recover.ts). */
  priority?: number;
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

/**
 * The job id of attempt `attempt` of delivery `deliveryId` (put back `deferral` times for its pace): a UUID (version 8,
 * RFC 9562 §5.8) of their hash.
 */
export function deliveryJobId(deliveryId: string, attempt: number, deferral = 0): string {
  const name = deferral === 0 ? `${deliveryId}/${attempt}` : `${deliveryId}/${attempt}/${deferral}`;
  const bytes = createHash("sha256").update(name).digest().subarray(0, 16);
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

/**
 * Enqueues attempts in the transaction running on `db` (nothing when the list is empty). An attempt due at once for a
 * paced subscription is given its start slot (throttle.ts); every job carries its subscription as its pg-boss group.
 */
export async function enqueueAttempts(
  boss: PgBoss,
  db: Queryable,
  attempts: readonly AttemptToEnqueue[],
): Promise<void> {
  if (attempts.length === 0) return;
  const paced = attempts.filter((item) => item.throttle.perSecond !== null && !item.at && !item.delaySeconds);
  const slots = await reserveSlots(
    db,
    paced.map((item) => ({ webhookId: item.webhookId, perSecond: item.throttle.perSecond as number })),
  );
  const slotOf = new Map(paced.map((item, i) => [item, slots[i]]));
  const now = Date.now();
  const jobs: JobInsert<DeliveryJob>[] = attempts.map((item) => {
    const { deliveryId, attempt, delaySeconds, deferral = 0, priority } = item;
    const slot = slotOf.get(item);
    const at = item.at ?? (slot && slot.getTime() > now ? slot : undefined);
    return {
      id: deliveryJobId(deliveryId, attempt, deferral),
      data: deferral === 0 ? { delivery_id: deliveryId, attempt } : { delivery_id: deliveryId, attempt, deferral },
      group: jobGroup(item.webhookId, item.throttle),
      ...(priority ? { priority } : {}),
      ...(at ? { startAfter: at } : delaySeconds ? { startAfter: delaySeconds } : {}),
    };
  });
  await boss.insert(DELIVERY_QUEUE, jobs, { db: onClient(db) });
}

/** Enqueues the first attempt of each of these new deliveries, under its subscription's throttles as they are now. */
export async function enqueueFirstAttempts(
  boss: PgBoss,
  db: Queryable,
  deliveries: readonly { id: string; webhookId: string; priority?: number }[],
): Promise<void> {
  const throttles = await throttlesOf(db, [...new Set(deliveries.map((delivery) => delivery.webhookId))]);
  await enqueueAttempts(
    boss,
    db,
    deliveries.map((delivery) => ({
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      attempt: 1,
      throttle: throttles.get(delivery.webhookId) ?? NO_THROTTLE,
      priority: delivery.priority,
    })),
  );
}

/** Rows a single insert carries at most, when a backlog is enqueued at once. */
const ENQUEUE_CHUNK = 5_000;

/**
 * Enqueues the next attempt of every pending delivery, due when the log says: the upgrade from pg-boss 10, whose
 * deliveries were queued in their own table (jobs/legacy-queue.ts). Returns how many. Remove when legacy-queue.ts goes.
 */
export async function enqueuePendingDeliveries(boss: PgBoss, client: Queryable): Promise<number> {
  const pending = await pendingDeliveries(client);
  for (let start = 0; start < pending.length; start += ENQUEUE_CHUNK) {
    await enqueueAttempts(
      boss,
      client,
      pending.slice(start, start + ENQUEUE_CHUNK).map((delivery) => ({
        deliveryId: delivery.id,
        webhookId: delivery.webhook_id,
        attempt: delivery.attempt_count + 1,
        throttle: throttleOf(delivery),
        at: delivery.next_attempt_at ?? new Date(),
      })),
    );
  }
  return pending.length;
}
