/**
 * Deliveries: one event for one subscription. Made by the fan-out of a numbered event (fan-out.ts), by a test send and by
 * a redelivery, always in the caller's transaction with the job of their first attempt; listed and read with every
 * attempt. The worker (worker.ts) sends them.
 */
import type { components } from "@service/spec/schema";
import type { PgBoss } from "pg-boss";
import type { Db } from "../../db/db.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import * as store from "./deliveries.store.ts";
import { enqueueAttempts } from "./delivery-jobs.ts";

export type Delivery = components["schemas"]["Delivery"];
/** The envelope as the contract defines it (the events module builds it; this one only sends it). */
type Event = components["schemas"]["Event"];

function toDelivery(row: store.DeliveryRow, attempts: store.AttemptRow[]): Delivery {
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

async function withAttempts(db: Db, rows: store.DeliveryRow[]): Promise<Delivery[]> {
  const attempts = await store.attemptsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) =>
    toDelivery(
      row,
      attempts.filter((attempt) => attempt.delivery_id === row.id),
    ),
  );
}

/** Sends `event` to these subscriptions: one delivery each, due at once; returns their ids. */
export async function sendEvent(boss: PgBoss, db: Db, event: Event, webhookIds: string[]): Promise<string[]> {
  const deliveries = webhookIds.map((webhookId) => ({ id: newId("delivery"), webhookId }));
  await store.insertDeliveries(db, {
    workspaceId: event.workspace_id,
    eventId: event.id,
    eventType: event.type,
    payload: JSON.stringify(event),
    deliveries,
  });
  await enqueueAttempts(
    boss,
    db,
    deliveries.map((delivery) => ({ deliveryId: delivery.id, attempt: 1 })),
  );
  return deliveries.map((delivery) => delivery.id);
}

export async function listDeliveries(
  db: Db,
  workspaceId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string; status?: Delivery["status"] },
) {
  const page = await store.listDeliveryRows(db, workspaceId, webhookId, query);
  return { ...page, data: await withAttempts(db, page.data) };
}

export async function getDelivery(db: Db, workspaceId: string, webhookId: string, id: string): Promise<Delivery> {
  const row = await store.findDelivery(db, workspaceId, webhookId, id);
  if (!row) throw new AppError("DELIVERY_NOT_FOUND", { detail: `No delivery ${id} for this subscription.` });
  return toDelivery(row, await store.attemptsOf(db, [row.id]));
}

/** Sends a delivery's event again, as a new delivery with the same body and `webhook-id`. */
export async function redeliver(
  boss: PgBoss,
  db: Db,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<Delivery> {
  const original = await store.findSentEvent(db, workspaceId, webhookId, id);
  if (!original) throw new AppError("DELIVERY_NOT_FOUND", { detail: `No delivery ${id} for this subscription.` });
  const again = newId("delivery");
  await store.insertDeliveries(db, {
    workspaceId,
    eventId: original.event_id,
    eventType: original.event_type,
    payload: original.payload,
    deliveries: [{ id: again, webhookId }],
  });
  await enqueueAttempts(boss, db, [{ deliveryId: again, attempt: 1 }]);
  return getDelivery(db, workspaceId, webhookId, again);
}
