/**
 * All SQL of the delivery pipeline: deliveries, their attempts, and the health of their subscriptions
 * (`failing_since`, and `enabled` / `disabled_reason` when delivery disables one; webhooks.store.ts owns the rest).
 *
 * The `deliveries` table is the log of deliveries that the console and /v1 show, not their queue: each attempt is a
 * pg-boss job (delivery-jobs.ts), enqueued in the transaction that writes the delivery or records the attempt before.
 */
import type { components } from "@service/spec/schema";
import { listPage, type PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import type { StoredTrace } from "../../lib/trace-context.ts";
import type { Outcome, Target } from "./deliver.ts";
import { DISABLE_AFTER_FAILING_MS } from "./schedule.ts";
import type { ThrottleColumns } from "./throttle.ts";

type Delivery = components["schemas"]["Delivery"];

export interface DeliveryRow {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  event_type: Delivery["event_type"];
  status: Delivery["status"];
  attempt_count: number;
  next_attempt_at: Date | null;
  payload: string;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  request_headers: Record<string, string> | null;
}

export interface SentEvent extends StoredTrace {
  event_id: string;
  event_type: Delivery["event_type"];
  payload: string;
}

/** A delivery with what its attempt needs of the subscription. */
export interface DeliveryTarget extends Target, ThrottleColumns {
  status: Delivery["status"];
  enabled: boolean;
}

const DELIVERY_COLUMNS =
  "id, workspace_id, webhook_id, event_id, event_type, status, attempt_count, next_attempt_at, payload, created_at, updated_at";

/**
 * Writes the deliveries of numbered events, due at once, in the caller's transaction (the sequencer's pass, a recovery
 * of missed events): the id of each is its event's time part, then 16 characters of the md5 of the event's and the
 * subscription's ids (upper-case hex, which are Crockford base32 characters), so the delivery of one event to one
 * subscription is made once. Returns those it made.
 */
export async function insertEventDeliveries(
  db: Queryable,
  deliveries: readonly {
    workspaceId: string;
    webhookId: string;
    eventId: string;
    eventType: Delivery["event_type"];
    payload: string;
    trace: StoredTrace;
  }[],
): Promise<{ id: string; webhook_id: string; event_id: string }[]> {
  const { rows } = await db.query<{ id: string; webhook_id: string; event_id: string }>({
    name: "insert-event-deliveries",
    text: `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, next_attempt_at,
                                   traceparent, tracestate)
           SELECT 'dlv_' || substr(d.event_id, 5, 10) || upper(substr(md5(d.event_id || d.webhook_id), 1, 16)),
                  d.workspace_id, d.webhook_id, d.event_id, d.event_type, d.payload, 'pending', now(), d.traceparent,
                  d.tracestate
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                  AS d(workspace_id, webhook_id, event_id, event_type, payload, traceparent, tracestate)
           ON CONFLICT (id) DO NOTHING
           RETURNING id, webhook_id, event_id`,
    values: [
      deliveries.map((delivery) => delivery.workspaceId),
      deliveries.map((delivery) => delivery.webhookId),
      deliveries.map((delivery) => delivery.eventId),
      deliveries.map((delivery) => delivery.eventType),
      deliveries.map((delivery) => delivery.payload),
      deliveries.map((delivery) => delivery.trace.traceparent),
      deliveries.map((delivery) => delivery.trace.tracestate),
    ],
  });
  return rows;
}

/** Writes deliveries of one body, due at once, in the caller's transaction. */
export async function insertDeliveries(
  db: Queryable,
  input: {
    workspaceId: string;
    eventId: string;
    eventType: Delivery["event_type"];
    payload: string;
    trace: StoredTrace;
    deliveries: { id: string; webhookId: string }[];
  },
): Promise<void> {
  if (input.deliveries.length === 0) return;
  await db.query(
    `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, next_attempt_at,
                             traceparent, tracestate)
     SELECT d.id, $1, d.webhook_id, $4, $5, $6, 'pending', now(), $7, $8
       FROM unnest($2::text[], $3::text[]) AS d(id, webhook_id)`,
    [
      input.workspaceId,
      input.deliveries.map((delivery) => delivery.id),
      input.deliveries.map((delivery) => delivery.webhookId),
      input.eventId,
      input.eventType,
      input.payload,
      input.trace.traceparent,
      input.trace.tracestate,
    ],
  );
}

/** The pending deliveries, for the upgrade that moves them onto pg-boss 12. Remove when legacy-queue.ts goes. */
export async function pendingDeliveries(
  db: Queryable,
): Promise<
  (ThrottleColumns & { id: string; webhook_id: string; attempt_count: number; next_attempt_at: Date | null })[]
> {
  const { rows } = await db.query(
    `SELECT d.id, d.webhook_id, d.attempt_count, d.next_attempt_at, w.max_deliveries_per_second,
            w.max_concurrent_deliveries
       FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.status = 'pending' ORDER BY d.id`,
  );
  return rows;
}

/** A delivery's event as it was sent: the body is fixed when the delivery is made, so a redelivery signs the same bytes. */
export async function findSentEvent(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<SentEvent | undefined> {
  const { rows } = await db.query<SentEvent>(
    `SELECT event_id, event_type, payload, traceparent, tracestate FROM deliveries
      WHERE workspace_id = $1 AND webhook_id = $2 AND id = $3`,
    [workspaceId, webhookId, id],
  );
  return rows[0];
}

export async function findDelivery(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE workspace_id = $1 AND webhook_id = $2 AND id = $3`,
    [workspaceId, webhookId, id],
  );
  return rows[0];
}

/** One page of a subscription's deliveries, newest first, as the list envelope (of rows). */
export function listDeliveryRows(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  page: PageParams & { status?: Delivery["status"] | undefined },
) {
  return listPage(
    db,
    {
      select: `SELECT ${DELIVERY_COLUMNS} FROM deliveries`,
      kind: "delivery",
      workspaceId,
      filters: [
        ["webhook_id = ?", webhookId],
        ["status = ?", page.status],
      ],
    },
    page,
    (row: DeliveryRow) => row,
  );
}

export async function attemptsOf(db: Queryable, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await db.query<AttemptRow>(
    "SELECT * FROM delivery_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt",
    [deliveryIds],
  );
  return rows;
}

/**
 * What the attempts of these deliveries need, with their subscriptions, by delivery id. A delivery that is gone (its
 * subscription was deleted) is missing from the map.
 */
export async function findTargets(db: Queryable, deliveryIds: readonly string[]): Promise<Map<string, DeliveryTarget>> {
  const { rows } = await db.query<DeliveryTarget>({
    name: "find-delivery-targets",
    text: `SELECT d.id, d.webhook_id, d.status, d.attempt_count, d.schedule_offset, d.event_id, d.event_type,
                  d.payload, d.traceparent, d.tracestate, w.url, w.enabled, w.secret, w.previous_secret,
                  w.previous_secret_expires_at,
                  w.max_deliveries_per_second, w.max_concurrent_deliveries
             FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.id = ANY($1)`,
    values: [deliveryIds],
  });
  return new Map(rows.map((row) => [row.id, row]));
}

/** A delivery whose subscription was disabled after it was made fails without an attempt. */
export async function abandon(db: Queryable, deliveryId: string): Promise<void> {
  await db.query(
    "UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now() WHERE id = $1 AND status = 'pending'",
    [deliveryId],
  );
}

/**
 * Settles as failed a pending delivery whose next attempt is `attempt` and could not be made: its job failed every
 * time pg-boss tried it (delivery-jobs.ts, DEAD_DELIVERY_QUEUE). True when it was still that attempt's to settle.
 */
export async function giveUp(db: Queryable, deliveryId: string, attempt: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now()
      WHERE id = $1 AND status = 'pending' AND attempt_count = $2 - 1`,
    [deliveryId, attempt],
  );
  return rowCount === 1;
}

/**
 * Writes classified attempts in one statement, in the caller's transaction (`save_attempt_outcomes()`, migrations
 * 0009, 0011 and 0015): for each, the attempt, the delivery's next state (a retry is due at `next_attempt_at`), and the
 * subscription's health (a failing streak starts, goes on or ends; 5 days of it, or a 410, disable the subscription).
 * An outcome whose delivery is gone (its subscription was deleted meanwhile), settled, or past this attempt (a late
 * duplicate) is skipped. Returns the number written.
 */
export async function saveOutcomes(db: Queryable, outcomes: readonly Outcome[]): Promise<number> {
  if (outcomes.length === 0) return 0;
  const rows = outcomes.map(({ deliveryId, webhookId, attempt, next, health }) => ({
    delivery_id: deliveryId,
    attempt: attempt.number,
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    response_status: attempt.status,
    response_body: attempt.body,
    error: attempt.error,
    request_headers: attempt.requestHeaders,
    status: next.status,
    delay_seconds: next.status === "pending" ? next.delaySeconds : null,
    webhook_id: webhookId,
    health,
  }));
  // The subscriptions first, in id order, with the lock their health update takes (the lock order of
  // docs/webhook-deliveries.md): save_attempt_outcomes() updates each delivery before its subscription.
  await db.query({
    name: "lock-outcome-webhooks",
    text: "SELECT 1 FROM webhooks WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE",
    values: [[...new Set(outcomes.map((outcome) => outcome.webhookId))]],
  });
  const { rows: result } = await db.query<{ written: number }>({
    name: "record-delivery-outcomes",
    text: "SELECT save_attempt_outcomes($1::jsonb, $2) AS written",
    values: [JSON.stringify(rows), DISABLE_AFTER_FAILING_MS / 1000],
  });
  return result[0]?.written ?? 0;
}

export interface StatsRow {
  succeeded: number;
  failed: number;
  pending: number;
  attempts: number;
  p50: number | null;
  p99: number | null;
}

/** A subscription's deliveries made in a window of ids (ids begin with their creation time), by state, with attempts. */
export async function deliveryStats(db: Queryable, webhookId: string, fromId: string, toId: string): Promise<StatsRow> {
  const { rows } = await db.query<StatsRow>({
    name: "webhook-delivery-stats",
    text: `WITH d AS (SELECT id, status FROM deliveries WHERE webhook_id = $1 AND id >= $2 AND id < $3),
                a AS (SELECT a.duration_ms, a.response_status FROM delivery_attempts a JOIN d ON d.id = a.delivery_id)
           SELECT (SELECT count(*) FILTER (WHERE status = 'succeeded') FROM d)::int AS succeeded,
                  (SELECT count(*) FILTER (WHERE status = 'failed') FROM d)::int AS failed,
                  (SELECT count(*) FILTER (WHERE status = 'pending') FROM d)::int AS pending,
                  (SELECT count(*) FROM a)::int AS attempts,
                  (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) FROM a
                    WHERE response_status IS NOT NULL) AS p50,
                  (SELECT percentile_disc(0.99) WITHIN GROUP (ORDER BY duration_ms) FROM a
                    WHERE response_status IS NOT NULL) AS p99`,
    values: [webhookId, fromId, toId],
  });
  return rows[0] as StatsRow;
}
