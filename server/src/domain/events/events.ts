/**
 * Recording events: each is written in the transaction of the change it describes (no event without its change, no
 * change without its event), with its webhook deliveries. Its wire shape and the reads of `/v1/events` are
 * `events.service.ts`.
 */
import type pg from "pg";
import { newId } from "../../lib/ids.ts";
import { type Enqueue, fanOut } from "../webhooks/deliveries.ts";
import { type EventType, toEvent } from "./events.service.ts";
import type { EventRow } from "./events.store.ts";

type Db = Pick<pg.PoolClient, "query">;

/** Records an event in the caller's transaction, with its webhook deliveries. */
export type RecordEvent = (db: Db, workspaceId: string, type: EventType, data: object) => Promise<string>;

/**
 * @example
 * const record = eventRecorder(createEnqueue(queue));
 * await record(client, workspaceId, "lead.captured", { object: lead });
 */
export function eventRecorder(enqueue: Enqueue): RecordEvent {
  return async (db, workspaceId, type, data) => {
    const { rows } = await db.query<EventRow>({
      name: "insert-event",
      text: "INSERT INTO events (id, workspace_id, type, data) VALUES ($1, $2, $3, $4) RETURNING *",
      values: [newId("event"), workspaceId, type, JSON.stringify(data)],
    });
    const row = rows[0] as EventRow;
    await fanOut(db, enqueue, { id: row.id, workspaceId, type, envelope: toEvent(row) });
    return row.id;
  };
}
