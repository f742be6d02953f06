/**
 * Deliveries: one event for one subscription. They are made in the transaction that records the event, with their
 * pg-boss jobs enqueued on the same connection (pg-boss 10 `insert(…, { db })`), so a rolled-back change sends
 * nothing and a committed one is never lost. `NOTIFY webhook_work` in that transaction wakes the workers at commit,
 * instead of waiting for their next poll.
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import type PgBoss from "pg-boss";
import { fetchPage } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, toPage } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";

/** An event type of the contract (imported from the contract, not from events.ts, which imports this module). */
type EventType = components["schemas"]["EventType"];

type Db = Pick<pg.PoolClient, "query">;
export type Delivery = components["schemas"]["Delivery"];

export const DELIVERY_QUEUE = "webhook-deliver";
export const WORK_CHANNEL = "webhook_work";
const DELIVERY_ID = /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface DeliveryJob {
  deliveryId: string;
}

/** Enqueues the delivery jobs on the caller's connection (inside its transaction). */
export type Enqueue = (db: Db, deliveryIds: string[], startAfterSeconds?: number) => Promise<void>;

export function createEnqueue(queue: PgBoss, options: { timeoutMs: number }): Enqueue {
  // An active job whose worker died is retried by pg-boss after this long (the attempt's timeout and a margin).
  const expireInSeconds = Math.ceil(options.timeoutMs / 1000) + 10;
  return async (db, deliveryIds, startAfterSeconds = 0) => {
    if (deliveryIds.length === 0) return;
    const startAfter = new Date(Date.now() + startAfterSeconds * 1000);
    await queue.insert(
      deliveryIds.map((deliveryId) => ({
        name: DELIVERY_QUEUE,
        data: { deliveryId } satisfies DeliveryJob,
        startAfter,
        // A worker killed mid-attempt loses nothing: the job expires and runs again.
        expireInSeconds,
        retryLimit: 5,
        retryDelay: 5,
      })),
      { db: { executeSql: (text, values) => db.query(text, values) } },
    );
    if (startAfterSeconds === 0) await db.query(`SELECT pg_notify('${WORK_CHANNEL}', '')`);
  };
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: EventType;
  status: Delivery["status"];
  attempt_count: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): Delivery {
  return {
    id: row.id,
    object: "delivery",
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.started_at.toISOString(),
      duration_ms: attempt.duration_ms,
      response_status: attempt.response_status,
      response_body: attempt.response_body,
      error: attempt.error,
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function withAttempts(db: Db, rows: DeliveryRow[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const { rows: attempts } = await db.query<AttemptRow>(
    "SELECT * FROM delivery_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt",
    [rows.map((row) => row.id)],
  );
  return rows.map((row) =>
    toDelivery(
      row,
      attempts.filter((attempt) => attempt.delivery_id === row.id),
    ),
  );
}

/** Inserts deliveries of one payload to these subscriptions and enqueues them; returns their ids. */
export async function insertDeliveries(
  db: Db,
  enqueue: Enqueue,
  input: { workspaceId: string; webhookIds: string[]; eventId: string; eventType: EventType; payload: string },
): Promise<string[]> {
  if (input.webhookIds.length === 0) return [];
  const ids = input.webhookIds.map(() => newId("delivery"));
  await db.query(
    `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, next_attempt_at)
     SELECT d.id, $1, d.webhook_id, $4, $5, $6, 'pending', now()
       FROM unnest($2::text[], $3::text[]) AS d(id, webhook_id)`,
    [input.workspaceId, ids, input.webhookIds, input.eventId, input.eventType, input.payload],
  );
  await enqueue(db, ids);
  return ids;
}

/** Fan-out of a recorded event: one delivery per enabled subscription to its type. */
export async function fanOut(
  db: Db,
  enqueue: Enqueue,
  event: { id: string; workspaceId: string; type: EventType; envelope: object },
): Promise<void> {
  const { rows } = await db.query<{ id: string }>({
    name: "webhooks-for-event",
    text: "SELECT id FROM webhooks WHERE workspace_id = $1 AND enabled AND $2 = ANY(events)",
    values: [event.workspaceId, event.type],
  });
  await insertDeliveries(db, enqueue, {
    workspaceId: event.workspaceId,
    webhookIds: rows.map((row) => row.id),
    eventId: event.id,
    eventType: event.type,
    payload: JSON.stringify(event.envelope),
  });
}

export async function listDeliveries(
  db: Db,
  workspaceId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string; status?: Delivery["status"] },
) {
  const limit = query.limit ?? 20;
  const rows = await fetchPage<DeliveryRow>(db, {
    select: "SELECT * FROM deliveries",
    workspaceId,
    filters: [
      ["webhook_id = ?", webhookId],
      ["status = ?", query.status],
    ],
    limit,
    after: decodeCursor(query.cursor, DELIVERY_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: await withAttempts(db, page.data) };
}

export async function getDelivery(db: Db, workspaceId: string, webhookId: string, id: string): Promise<Delivery> {
  const { rows } = await db.query<DeliveryRow>(
    "SELECT * FROM deliveries WHERE workspace_id = $1 AND webhook_id = $2 AND id = $3",
    [workspaceId, webhookId, id],
  );
  if (!rows[0]) throw new AppError("DELIVERY_NOT_FOUND", { detail: `No delivery ${id} for this subscription.` });
  return (await withAttempts(db, rows))[0] as Delivery;
}

/** Sends a delivery's event again, as a new delivery with the same body and `webhook-id`. */
export async function redeliver(
  db: Db,
  enqueue: Enqueue,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<Delivery> {
  const { rows } = await db.query<{ event_id: string; event_type: EventType; payload: string }>(
    "SELECT event_id, event_type, payload FROM deliveries WHERE workspace_id = $1 AND webhook_id = $2 AND id = $3",
    [workspaceId, webhookId, id],
  );
  const original = rows[0];
  if (!original) throw new AppError("DELIVERY_NOT_FOUND", { detail: `No delivery ${id} for this subscription.` });
  const [newDeliveryId] = await insertDeliveries(db, enqueue, {
    workspaceId,
    webhookIds: [webhookId],
    eventId: original.event_id,
    eventType: original.event_type,
    payload: original.payload,
  });
  return getDelivery(db, workspaceId, webhookId, newDeliveryId as string);
}
