/**
 * `POST /v1/tickets/batch` (the engine is ../batch-upsert.ts): tickets matched on `external_id`. A ticket's write can
 * fail on a statement (its number taken from the counter, its external_id taken meanwhile, a lead deleted meanwhile),
 * so every item that writes runs under a savepoint: a failed item gives its number back, and numbers keep no gaps.
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { type BatchKind, type SchemaCheck, upsertBatch } from "../batch-upsert.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { createTicket, type Ticket, ticketChanges, toTicket, updateLockedTicket } from "./tickets.service.ts";
import { lockTicketRowsByExternalId } from "./tickets.store.ts";

type TicketCreate = components["schemas"]["TicketCreate"];
type TicketBatchUpsert = components["schemas"]["TicketBatchUpsert"];
type TicketBatchResults = components["schemas"]["TicketBatchResults"];

export interface TicketBatchDeps {
  record: RecordEvent;
  /** The contract's `TicketCreate`, for one item (http/schema-check.ts). */
  checkTicket: SchemaCheck;
}

/**
 * @example
 * await upsertTickets(client, workspaceId, { match_on: "external_id", items }, request.id, deps);
 */
export function upsertTickets(
  db: pg.PoolClient,
  workspaceId: string,
  batch: TicketBatchUpsert,
  requestId: string,
  deps: TicketBatchDeps,
): Promise<TicketBatchResults> {
  const kind: BatchKind<TicketCreate, Ticket> = {
    validateItem: deps.checkTicket,
    matchOn: batch.match_on,
    keyOf: (value) => value,
    lockMatches: async (db, keys) => (await lockTicketRowsByExternalId(db, workspaceId, keys)).map(toTicket),
    create: (db, item) => createTicket(db, workspaceId, item, deps.record),
    unchanged,
    update: (db, current, item) => updateLockedTicket(db, workspaceId, current, item, deps.record),
    risky: () => true,
  };
  return upsertBatch(db, batch.items, requestId, kind);
}

/** Whether the item would change nothing of `current` (an illegal status move changes something: it fails). */
function unchanged(current: Ticket, item: TicketCreate): boolean {
  try {
    return ticketChanges(current, item, new Date()).changed.length === 0;
  } catch {
    return false;
  }
}
