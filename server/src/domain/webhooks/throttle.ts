/**
 * A subscription's throttles: `max_concurrent_deliveries` and `max_deliveries_per_second`, held for every attempt
 * whatever made it (a new event, a retry, a recovery, a redelivery, a test event), across every worker process.
 *
 * Which part is pg-boss's, and why:
 *   - Concurrency is pg-boss's `groupConcurrency`: each delivery job carries its subscription as its group (and the
 *     subscription's limit as the group's tier), and pg-boss's fetch takes a job only while fewer of its group are
 *     active than the limit, counting active jobs in the database, so the limit holds across processes (exactly with
 *     patches/pg-boss+12.38.0.patch, which takes the queue's fetches one at a time: unpatched, fetches at the same
 *     moment each count in their own snapshot and overtake each other). A group at its limit is skipped by the fetch,
 *     not waited on: the jobs of other subscriptions are fetched past it. Every subscription has a limit
 *     (DEFAULT_CONCURRENCY when it sets none), so that one slow receiver cannot take every worker.
 *   - The rate is ours: pg-boss has concurrency limits, not rates. An attempt starts only while fewer than `r` attempts
 *     of its subscription started in the last 1.05 s (`admit_delivery_starts()`, migration 0011, a sliding window
 *     kept in `webhook_pacing`); one that may not start yet is not waited for in its handler, which would hold a worker
 *     from the other subscriptions: its job is completed and the same attempt is enqueued again for the time the
 *     window frees (worker.ts). And work that is due at once for a paced subscription (a recovery's thousands, a
 *     burst of events) is enqueued already spread over start slots 1.1/r apart (`reserve_delivery_slots()`), so that
 *     the queue never holds more of it due than the window admits.
 */
import type { Queryable } from "../../db/queryable.ts";

/** The attempts in flight at once to a subscription that sets no `max_concurrent_deliveries`. */
const DEFAULT_CONCURRENCY = 10;
/** The highest `max_concurrent_deliveries` the contract allows. */
const MAX_CONCURRENCY = 50;

export interface Throttle {
  /** `max_deliveries_per_second`, or null: no rate of its own. */
  perSecond: number | null;
  /** `max_concurrent_deliveries`, or null: DEFAULT_CONCURRENCY. */
  concurrent: number | null;
}

/** A subscription without throttles of its own. */
export const NO_THROTTLE: Throttle = { perSecond: null, concurrent: null };

/** The columns of a subscription that hold its throttles. */
export interface ThrottleColumns {
  max_deliveries_per_second: number | null;
  max_concurrent_deliveries: number | null;
}

export function throttleOf(row: ThrottleColumns): Throttle {
  return { perSecond: row.max_deliveries_per_second, concurrent: row.max_concurrent_deliveries };
}

/**
 * The work options that make pg-boss hold each subscription's concurrency: one tier per allowed limit, named by it.
 *
 * @example
 * boss.work(DELIVERY_QUEUE, { ...groupConcurrency(), batchSize: 5 }, handler);
 */
export function groupConcurrency(): { groupConcurrency: { default: number; tiers: Record<string, number> } } {
  const tiers: Record<string, number> = {};
  for (let limit = 1; limit <= MAX_CONCURRENCY; limit++) tiers[String(limit)] = limit;
  return { groupConcurrency: { default: DEFAULT_CONCURRENCY, tiers } };
}

/** The pg-boss group of a job of subscription `webhookId`: the tier names its concurrency limit. */
export function jobGroup(webhookId: string, throttle: Throttle): { id: string; tier?: string } {
  return throttle.concurrent === null ? { id: webhookId } : { id: webhookId, tier: String(throttle.concurrent) };
}

/** True when a job made under `tier` is held to the concurrency the subscription has now. */
export function sameConcurrency(tier: string | null | undefined, throttle: Throttle): boolean {
  return (tier ?? null) === (throttle.concurrent === null ? null : String(throttle.concurrent));
}

/** The throttles of these subscriptions, by id (a subscription that is gone is missing). */
export async function throttlesOf(db: Queryable, webhookIds: readonly string[]): Promise<Map<string, Throttle>> {
  if (webhookIds.length === 0) return new Map();
  const { rows } = await db.query<ThrottleColumns & { id: string }>({
    name: "webhook-throttles",
    text: "SELECT id, max_deliveries_per_second, max_concurrent_deliveries FROM webhooks WHERE id = ANY($1)",
    values: [webhookIds],
  });
  return new Map(rows.map((row) => [row.id, throttleOf(row)]));
}

/**
 * Start slots for work due at once, one per item in order (items of one subscription get consecutive slots), in the
 * caller's transaction. Only for paced subscriptions (`perSecond` set).
 */
export async function reserveSlots(
  db: Queryable,
  items: readonly { webhookId: string; perSecond: number }[],
): Promise<Date[]> {
  if (items.length === 0) return [];
  const { rows } = await db.query<{ slots: Date[] }>({
    name: "reserve-delivery-slots",
    text: "SELECT reserve_delivery_slots($1::text[], $2::int[]) AS slots",
    values: [items.map((item) => item.webhookId), items.map((item) => item.perSecond)],
  });
  return rows[0]?.slots ?? [];
}

/**
 * Admits attempts about to start, one answer per item in order: null when it may start now (its start is counted),
 * else the start slot it is given instead. Only for paced subscriptions; in its own short transaction (`db` a pool),
 * so that the rows of the pace are not held across the attempt.
 */
export async function admitStarts(
  db: Queryable,
  items: readonly { webhookId: string; perSecond: number }[],
): Promise<(Date | null)[]> {
  if (items.length === 0) return [];
  const { rows } = await db.query<{ answers: (Date | null)[] }>({
    name: "admit-delivery-starts",
    text: "SELECT admit_delivery_starts($1::text[], $2::int[]) AS answers",
    values: [items.map((item) => item.webhookId), items.map((item) => item.perSecond)],
  });
  return rows[0]?.answers ?? [];
}
