/**
 * Recording an event: its row, and one delivery per enabled subscription to its type, in the transaction of the change
 * it describes, so that a committed change is never without its event and its deliveries, nor a rolled-back one with
 * them. The writes of leads, conversations and tickets are given this function as their `RecordEvent`.
 *
 * It lives here, not in events/, so that the dependency points one way: webhooks know events; events know nothing of
 * webhooks.
 */
import { insertEvent, type RecordEvent } from "../events/events.service.ts";
import { fanOut } from "./deliveries.service.ts";

/**
 * @example
 * await recordEvent(client, workspaceId, "lead.captured", { object: lead }); // "evt_01JD…"
 */
export const recordEvent: RecordEvent = async (db, workspaceId, type, data) => {
  const event = await insertEvent(db, workspaceId, type, data);
  await fanOut(db, event);
  return event.id;
};
