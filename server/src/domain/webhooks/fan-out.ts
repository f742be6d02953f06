/**
 * An event's fan-out: one delivery per enabled subscription to its type, and the pg-boss job of each delivery's first
 * attempt, written in the sequencer's pass that numbers the event (events/sequencer.ts), so that a numbered event is
 * never without its deliveries and their jobs. The body is the envelope as `/v1/events` shows it, `sequence` included.
 *
 * It lives here, not in events/, so that the dependency points one way: webhooks know events; events know nothing of
 * webhooks.
 */
import type { PgBoss } from "pg-boss";
import { toEvent } from "../events/events.service.ts";
import type { OnSequenced } from "../events/sequencer.ts";
import { insertEventDeliveries } from "./deliveries.store.ts";
import { enqueueAttempts } from "./delivery-jobs.ts";

/**
 * @example
 * startSequencer({ pool, logger, onSequenced: deliveryFanOut(boss) });
 */
export function deliveryFanOut(boss: PgBoss): OnSequenced {
  return async (db, events) => {
    const deliveries = events.flatMap((event) => {
      if (event.webhook_ids.length === 0) return [];
      const payload = JSON.stringify(toEvent(event));
      return event.webhook_ids.map((webhookId) => ({
        workspaceId: event.workspace_id,
        webhookId,
        eventId: event.id,
        eventType: event.type,
        payload,
      }));
    });
    if (deliveries.length === 0) return;
    const ids = await insertEventDeliveries(db, deliveries);
    await enqueueAttempts(
      boss,
      db,
      ids.map((deliveryId) => ({ deliveryId, attempt: 1 })),
    );
  };
}
