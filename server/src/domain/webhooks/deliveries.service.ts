/**
 * Deliveries: one event for one subscription. Made by the fan-out of a numbered event (fan-out.ts), by a test send and by
 * a redelivery, always in the caller's transaction with the job of their first attempt; listed and read with every
 * attempt. The worker (worker.ts) sends them.
 */
import type { components } from "@service/spec/schema";
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { instantOf } from "../../lib/date-time.ts";
import { firstIdAt, newId } from "../../lib/ids.ts";
import type { StoredTrace } from "../../lib/trace-context.ts";
import { isLiveScope } from "../modes.ts";
import * as store from "./deliveries.store.ts";
import { enqueueFirstAttempts } from "./delivery-jobs.ts";
import { getWebhook as getWebhookRow, lockWebhook } from "./webhooks.service.ts";

export type Delivery = components["schemas"]["Delivery"];
/** The envelope as the contract defines it (the events module builds it; this one only sends it). */
type Event = components["schemas"]["Event"];

function toDelivery(row: store.DeliveryRow, attempts: store.AttemptRow[]): Delivery {
  return {
    id: row.id,
    object: "delivery",
    livemode: isLiveScope(row.workspace_id),
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    payload: row.payload,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.started_at.toISOString(),
      duration_ms: attempt.duration_ms,
      response_status: attempt.response_status,
      response_body: attempt.response_body,
      error: attempt.error,
      request_headers: attempt.request_headers,
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function withAttempts(db: Queryable, rows: store.DeliveryRow[]): Promise<Delivery[]> {
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

/** Sends `event` to these subscriptions: one delivery each, due at once (at each one's pace); returns their ids. */
export async function sendEvent(
  boss: PgBoss,
  db: Queryable,
  event: Event,
  webhookIds: string[],
  trace: StoredTrace,
): Promise<string[]> {
  const deliveries = webhookIds.map((webhookId) => ({ id: newId("delivery"), webhookId }));
  await store.insertDeliveries(db, {
    trace,
    workspaceId: event.workspace_id,
    eventId: event.id,
    eventType: event.type,
    payload: JSON.stringify(event),
    deliveries,
  });
  await enqueueFirstAttempts(boss, db, deliveries);
  return deliveries.map((delivery) => delivery.id);
}

export async function listDeliveries(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string; status?: Delivery["status"] },
) {
  const page = await store.listDeliveryRows(db, workspaceId, webhookId, query);
  return { ...page, data: await withAttempts(db, page.data) };
}

export async function getDelivery(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<Delivery> {
  const row = await store.findDelivery(db, workspaceId, webhookId, id);
  if (!row) throw new AppError("DELIVERY_NOT_FOUND", { detail: `No delivery ${id} for this subscription.` });
  return toDelivery(row, await store.attemptsOf(db, [row.id]));
}

/** Sends a delivery's event again, as a new delivery with the same body and `webhook-id`. */
export async function redeliver(
  boss: PgBoss,
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  id: string,
): Promise<Delivery> {
  await lockWebhook(db, workspaceId, webhookId, "change");
  const original = await store.findSentEvent(db, workspaceId, webhookId, id);
  if (!original) throw new AppError("DELIVERY_NOT_FOUND", { detail: `No delivery ${id} for this subscription.` });
  const again = newId("delivery");
  await store.insertDeliveries(db, {
    workspaceId,
    eventId: original.event_id,
    eventType: original.event_type,
    payload: original.payload,
    trace: { traceparent: original.traceparent, tracestate: original.tracestate },
    deliveries: [{ id: again, webhookId }],
  });
  await enqueueFirstAttempts(boss, db, [{ id: again, webhookId }]);
  return getDelivery(db, workspaceId, webhookId, again);
}

const DAY_MS = 24 * 3600 * 1000;

/** A subscription's health over the deliveries made since `since` (24 hours ago when omitted). */
export async function stats(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  since: string | undefined,
): Promise<components["schemas"]["WebhookStats"]> {
  await getWebhookRow(db, workspaceId, webhookId);
  const until = Date.now();
  const from = since === undefined ? until - DAY_MS : instantOf(since).getTime();
  if (from > until) {
    throw new AppError("VALIDATION_FAILED", {
      detail: "`since` must not be in the future.",
      errors: [{ path: "query.since", message: "must not be in the future" }],
    });
  }
  const row = await store.deliveryStats(db, webhookId, firstIdAt("delivery", from), firstIdAt("delivery", until + 1));
  const settled = row.succeeded + row.failed;
  return {
    object: "webhook_stats",
    webhook_id: webhookId,
    since: new Date(from).toISOString(),
    until: new Date(until).toISOString(),
    deliveries: { succeeded: row.succeeded, failed: row.failed, pending: row.pending },
    attempts: row.attempts,
    success_rate: settled === 0 ? null : Math.round((row.succeeded / settled) * 10_000) / 10_000,
    response_time_ms: { p50: row.p50, p99: row.p99 },
  };
}
