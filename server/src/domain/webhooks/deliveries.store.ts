/**
 * All SQL of the delivery pipeline: deliveries, their attempts, and the health of their subscriptions
 * (`failing_since`, and `enabled` / `disabled_reason` when delivery disables one; webhooks.store.ts owns the rest).
 *
 * The `deliveries` table is also the work queue. A delivery is due when it is pending, its `next_attempt_at` has come
 * and it has no live lease; `claimDue` leases due deliveries to one worker (`FOR UPDATE SKIP LOCKED`, so workers in
 * several processes never take the same one), and `recordOutcomes` ends the lease. worker.ts says which failure each of
 * these columns guards.
 */
import type { components } from "@service/spec/schema";
import pg from "pg";
import { listPage, type PageParams } from "../../db/pages.ts";
import type { Outcome, Target } from "./deliver.ts";
import { DISABLE_AFTER_FAILING_MS } from "./schedule.ts";

type Db = Pick<pg.PoolClient, "query">;
type Delivery = components["schemas"]["Delivery"];
type Event = components["schemas"]["Event"];

/** Notified in the transaction that makes deliveries: the workers wake when it commits, not at their next poll. */
export const WORK_CHANNEL = "webhook_work";

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: Delivery["event_type"];
  status: Delivery["status"];
  attempt_count: number;
  next_attempt_at: Date | null;
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
}

export interface SentEvent {
  event_id: string;
  event_type: Delivery["event_type"];
  payload: string;
}

/** A claimed delivery with what its attempt needs of the subscription. */
export interface DueDelivery extends Target {
  enabled: boolean;
}

const DELIVERY_COLUMNS =
  "id, webhook_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at, updated_at";

/**
 * The statement that records a new event and its fan-out: `record_event()` (migration 0007) writes the event's row and
 * one delivery of `payload` per enabled subscription to its type, due at once, and wakes the workers at commit when
 * it made any. Text with literal values, so that it can travel with COMMIT (db/deferred.ts).
 */
export function recordEventStatement(event: Event, payload: string): string {
  const values = [event.id, event.workspace_id, event.type, JSON.stringify(event.data), event.timestamp, payload];
  const [id, workspaceId, type, data, createdAt, body] = values.map((value) => pg.escapeLiteral(value));
  return `SELECT record_event(${id}, ${workspaceId}, ${type}, ${data}::jsonb, ${createdAt}::timestamptz, ${body})`;
}

/**
 * Writes deliveries of one body, due at once, and wakes the workers at commit. They are written in the caller's
 * transaction: a rolled-back change sends nothing, a committed one is never lost.
 */
export async function insertDeliveries(
  db: Db,
  input: {
    workspaceId: string;
    eventId: string;
    eventType: Delivery["event_type"];
    payload: string;
    deliveries: { id: string; webhookId: string }[];
  },
): Promise<void> {
  if (input.deliveries.length === 0) return;
  await db.query(
    `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, next_attempt_at)
     SELECT d.id, $1, d.webhook_id, $4, $5, $6, 'pending', now()
       FROM unnest($2::text[], $3::text[]) AS d(id, webhook_id)`,
    [
      input.workspaceId,
      input.deliveries.map((delivery) => delivery.id),
      input.deliveries.map((delivery) => delivery.webhookId),
      input.eventId,
      input.eventType,
      input.payload,
    ],
  );
  await db.query(`SELECT pg_notify('${WORK_CHANNEL}', '')`);
}

/** A delivery's event as it was sent: the body is fixed when the delivery is made, so a redelivery signs the same bytes. */
export async function findSentEvent(
  db: Db,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<SentEvent | undefined> {
  const { rows } = await db.query<SentEvent>(
    "SELECT event_id, event_type, payload FROM deliveries WHERE workspace_id = $1 AND webhook_id = $2 AND id = $3",
    [workspaceId, webhookId, id],
  );
  return rows[0];
}

export async function findDelivery(
  db: Db,
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
  db: Db,
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

export async function attemptsOf(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const { rows } = await db.query<AttemptRow>(
    "SELECT * FROM delivery_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt",
    [deliveryIds],
  );
  return rows;
}

/**
 * Leases up to `limit` due deliveries to the caller for `leaseSeconds` and returns them with their subscriptions. A
 * delivery whose lease ran out (its attempt never got recorded) is due again.
 */
export async function claimDue(db: Db, options: { limit: number; leaseSeconds: number }): Promise<DueDelivery[]> {
  const { rows } = await db.query<DueDelivery>({
    name: "claim-due-deliveries",
    text: `WITH due AS (
             SELECT id FROM deliveries
              WHERE status = 'pending' AND next_attempt_at <= now() AND (leased_until IS NULL OR leased_until < now())
              ORDER BY next_attempt_at LIMIT $1
                FOR UPDATE SKIP LOCKED
           ), leased AS (
             UPDATE deliveries d SET leased_until = now() + make_interval(secs => $2)
               FROM due WHERE d.id = due.id
             RETURNING d.id, d.webhook_id, d.attempt_count, d.event_id, d.event_type, d.payload
           )
           SELECT leased.*, w.url, w.enabled, w.secret, w.previous_secret, w.previous_secret_expires_at
             FROM leased JOIN webhooks w ON w.id = leased.webhook_id`,
    values: [options.limit, options.leaseSeconds],
  });
  return rows;
}

/** A delivery whose subscription was disabled after it was made fails without an attempt. */
export async function abandon(db: Db, deliveryId: string): Promise<void> {
  await db.query(
    `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, leased_until = NULL, updated_at = now()
      WHERE id = $1`,
    [deliveryId],
  );
}

/**
 * Writes classified attempts in one statement that commits on its own (`record_delivery_outcomes()`, migration 0008):
 * for each, the attempt, the delivery's next state (which ends its lease; a retry is due at `next_attempt_at`), and
 * the subscription's health (a failing streak starts, goes on or ends; 5 days of it, or a 410, disable the
 * subscription). An outcome whose delivery is gone (its subscription was deleted meanwhile) is skipped. Returns the
 * number written.
 */
export async function recordOutcomes(db: Db, outcomes: readonly Outcome[]): Promise<number> {
  const rows = outcomes.map(({ deliveryId, webhookId, attempt, next, health }) => ({
    delivery_id: deliveryId,
    attempt: attempt.number,
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    response_status: attempt.status,
    response_body: attempt.body,
    error: attempt.error,
    status: next.status,
    delay_seconds: next.status === "pending" ? next.delaySeconds : null,
    webhook_id: webhookId,
    health,
  }));
  const { rows: result } = await db.query<{ written: number }>({
    name: "record-delivery-outcomes",
    text: "SELECT record_delivery_outcomes($1::jsonb, $2) AS written",
    values: [JSON.stringify(rows), DISABLE_AFTER_FAILING_MS / 1000],
  });
  return result[0]?.written ?? 0;
}
