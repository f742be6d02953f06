/**
 * An event's fan-out: one delivery per enabled subscription to its type, and the pg-boss job of each delivery's first
 * attempt, written in the sequencer's pass that numbers the event (events/sequencer.ts), so that a numbered event is
 * never without its deliveries and their jobs. The body is the envelope as `/v1/events` shows it, `sequence` included.
 *
 * It lives here, not in events/, so that the dependency points one way: webhooks know events; events know nothing of
 * webhooks.
 */
import type { PgBoss } from "pg-boss";
import type { Queryable } from "../../db/queryable.ts";
import { toEvent } from "../events/events.service.ts";
import type { SequencedRow } from "../events/events.store.ts";
import type { OnSequenced } from "../events/sequencer.ts";
import { insertEventDeliveries } from "./deliveries.store.ts";
import { enqueueFirstAttempts } from "./delivery-jobs.ts";
import { holdWebhooks } from "./webhooks.store.ts";

/**
 * @example
 * startSequencer({ pool, logger, onSequenced: deliveryFanOut(boss) });
 */
export function deliveryFanOut(boss: PgBoss): OnSequenced {
  return async (db, events) => {
    await deliverEvents(boss, db, events);
  };
}

/**
 * Makes the deliveries of numbered events to the subscriptions each names (those not made already), with the jobs of
 * their first attempts, in the caller's transaction. The sequencer's pass calls it; so does a recovery of missed events.
 */
export async function deliverEvents(
  boss: PgBoss,
  db: Queryable,
  events: readonly SequencedRow[],
  /** The priority of the first event's deliveries, one less for each event after it (a recovery's order). */
  firstPriority?: number,
): Promise<number> {
  // The subscriptions before their deliveries and pace (the lock order); one deleted since the event was numbered gets
  // nothing.
  const live = await holdWebhooks(db, [...new Set(events.flatMap((event) => event.webhook_ids))].sort());
  const deliveries = events.flatMap((event) => {
    const webhookIds = event.webhook_ids.filter((webhookId) => live.has(webhookId));
    if (webhookIds.length === 0) return [];
    const payload = JSON.stringify(toEvent(event));
    return webhookIds.map((webhookId) => ({
      workspaceId: event.workspace_id,
      webhookId,
      eventId: event.id,
      eventType: event.type,
      payload,
      trace: { traceparent: event.traceparent, tracestate: event.tracestate },
    }));
  });
  if (deliveries.length === 0) return 0;
  const made = await insertEventDeliveries(db, deliveries);
  const position = new Map(events.map((event, i) => [event.id, i]));
  await enqueueFirstAttempts(
    boss,
    db,
    made.map((delivery) => ({
      id: delivery.id,
      webhookId: delivery.webhook_id,
      ...(firstPriority === undefined ? {} : { priority: firstPriority - (position.get(delivery.event_id) ?? 0) }),
    })),
  );
  return made.length;
}
