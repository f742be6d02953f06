/**
 * Recording an event: its row, and one delivery per enabled subscription to its type, in the transaction of the change
 * it describes, so that a committed change is never without its event and its deliveries, nor a rolled-back one with
 * them. The writes of leads, conversations and tickets are given this function as their `RecordEvent`.
 *
 * It lives here, not in events/, so that the dependency points one way: webhooks know events; events know nothing of
 * webhooks.
 */
import { deferToCommit } from "../../db/deferred.ts";
import { newEvent, type RecordEvent } from "../events/events.service.ts";
import { recordEventStatement } from "./deliveries.store.ts";

/**
 * The event's row, its deliveries and the workers' wake-up are one statement (`record_event()`, migration 0007), and
 * it travels with the transaction's COMMIT when the transaction allows (withTransaction, idempotentWrite): recording
 * an event costs no round trip.
 *
 * @example
 * await recordEvent(client, workspaceId, "lead.captured", { object: lead }); // "evt_01JD…"
 */
export const recordEvent: RecordEvent = async (db, workspaceId, type, data) => {
  const event = newEvent(workspaceId, type, data);
  const statement = recordEventStatement(event, JSON.stringify(event));
  if (!deferToCommit(db, statement)) await db.query(statement);
  return event.id;
};
