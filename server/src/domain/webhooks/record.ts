/**
 * Recording an event: its row, and one delivery per enabled subscription to its type, in the transaction of the change
 * it describes, so that a committed change is never without its event and its deliveries, nor a rolled-back one with
 * them. The writes of leads, conversations and tickets are given this function as their `RecordEvent`.
 *
 * It lives here, not in events/, so that the dependency points one way: webhooks know events; events know nothing of
 * webhooks.
 */
import { insertEvent, type RecordEvent } from "../events/events.service.ts";
import { sendEvent } from "./deliveries.service.ts";
import { SUBSCRIBERS_OF_EVENT } from "./deliveries.store.ts";

/**
 * @example
 * await recordEvent(client, workspaceId, "lead.captured", { object: lead }); // "evt_01JD…"
 */
export const recordEvent: RecordEvent = async (db, workspaceId, type, data) => {
  // The event's row and its subscribers in one statement; no subscriber, no further statement.
  const { event, alongside } = await insertEvent<{ subscribers: string[] }>(
    db,
    workspaceId,
    type,
    data,
    SUBSCRIBERS_OF_EVENT,
  );
  if (alongside.subscribers.length > 0) await sendEvent(db, event, alongside.subscribers);
  return event.id;
};
