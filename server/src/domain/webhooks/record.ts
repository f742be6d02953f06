/**
 * Recording an event: its row, one delivery per enabled subscription to its type, and the pg-boss job of each
 * delivery's first attempt, in the transaction of the change it describes, so that a committed change is never without
 * its event, its deliveries and their jobs, nor a rolled-back one with them. The writes of leads, conversations and
 * tickets are given this recorder as their `RecordEvent`.
 *
 * It lives here, not in events/, so that the dependency points one way: webhooks know events; events know nothing of
 * webhooks.
 */
import type { PgBoss } from "pg-boss";
import { newEvent, type RecordEvent } from "../events/events.service.ts";
import { insertEvent } from "./deliveries.store.ts";
import { enqueueAttempts } from "./delivery-jobs.ts";

/**
 * @example
 * const recordEvent = eventRecorder(boss);
 * await recordEvent(client, workspaceId, "lead.captured", { object: lead }); // "evt_01JD…"
 */
export function eventRecorder(boss: PgBoss): RecordEvent {
  return async (db, workspaceId, type, data) => {
    const event = newEvent(workspaceId, type, data);
    const deliveries = await insertEvent(db, event, JSON.stringify(event));
    await enqueueAttempts(
      boss,
      db,
      deliveries.map((deliveryId) => ({ deliveryId, attempt: 1 })),
    );
    return event.id;
  };
}
