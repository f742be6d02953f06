/**
 * `POST /v1/leads/batch` (the engine is ../batch-upsert.ts): leads matched on `external_id` or on the e-mail address
 * in any case. A create whose `external_id` is taken inserts nothing (no statement fails), so creates need no
 * savepoint and are inserted in one statement; only an update that moves `external_id` can fail its item.
 */

import { isDeepStrictEqual } from "node:util";
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { checkCustomAttributes } from "../attribute-definitions/attribute-definitions.service.ts";
import { type BatchKind, type SchemaCheck, upsertBatch } from "../batch-upsert.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { capturedLead, createLead, type Lead, newLeadValues, toLead, updateLockedLead } from "./leads.service.ts";
import { insertLeadRows, lockMatchingLeadRows } from "./leads.store.ts";

type LeadCreate = components["schemas"]["LeadCreate"];
type LeadBatchUpsert = components["schemas"]["LeadBatchUpsert"];
type LeadBatchResults = components["schemas"]["LeadBatchResults"];

export interface LeadBatchDeps {
  record: RecordEvent;
  /** The contract's `LeadCreate`, for one item (http/schema-check.ts). */
  checkLead: SchemaCheck;
}

/**
 * @example
 * await upsertLeads(client, workspaceId, { match_on: "external_id", items }, request.id, deps);
 */
export function upsertLeads(
  db: pg.PoolClient,
  workspaceId: string,
  batch: LeadBatchUpsert,
  requestId: string,
  deps: LeadBatchDeps,
): Promise<LeadBatchResults> {
  return upsertBatch(db, batch.items, requestId, leadKind(workspaceId, batch.match_on, deps));
}

function leadKind(workspaceId: string, matchOn: LeadBatchUpsert["match_on"], deps: LeadBatchDeps) {
  const kind: BatchKind<LeadCreate, Lead> = {
    validateItem: deps.checkLead,
    matchOn,
    keyOf: (value) => (matchOn === "email" ? value.toLowerCase() : value),
    lockMatches: async (db, keys) => (await lockMatchingLeadRows(db, workspaceId, matchOn, keys)).map(toLead),
    ambiguous: (item) =>
      new AppError("LEAD_MATCH_AMBIGUOUS", {
        detail: `More than one lead has the e-mail address ${item.email}; match these on external_id.`,
      }),
    insertMany: async (db, items) => {
      // An item whose values do not fit the definitions is left to the one-at-a-time path, which fails it alone.
      const seen = new Set<string>();
      const fits = await sequentially(items, (item) => fitsDefinitions(db, workspaceId, item, seen));
      const creates = items.map((item, i) =>
        fits[i] ? { id: newId("lead"), values: newLeadValues(item) } : undefined,
      );
      const inserted = creates.filter((create) => create !== undefined);
      const rows = new Map((await insertLeadRows(db, workspaceId, inserted)).map((row) => [row.id, row]));
      return creates.map((create) => (create ? rows.get(create.id) : undefined)).map((row) => row && toLead(row));
    },
    created: (db, lead) => capturedLead(db, workspaceId, lead, deps.record),
    create: (db, item) => createLead(db, workspaceId, item, deps.record),
    unchanged,
    update: (db, current, item) => updateLockedLead(db, workspaceId, current, item, deps.record),
    // Only a new external_id can fail the update (taken by another lead); nothing else of a lead's write can.
    risky: (current, item) =>
      current !== undefined && item.external_id !== undefined && item.external_id !== current.external_id,
  };
  return kind;
}

/** Whether the item would change nothing of `current`. */
function unchanged(current: Lead, item: LeadCreate): boolean {
  return Object.entries(item).every(([field, value]) =>
    field === "tags"
      ? isDeepStrictEqual([...new Set(value as string[])], current.tags)
      : isDeepStrictEqual(value, current[field as keyof Lead]),
  );
}

/** Whether a new lead's `custom_attributes` fit the definitions (`seen`: the unique values earlier items took). */
async function fitsDefinitions(db: pg.PoolClient, workspaceId: string, item: LeadCreate, seen: Set<string>) {
  try {
    await checkCustomAttributes(db, workspaceId, "lead", item.custom_attributes ?? {}, { seen });
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

/** `each` of every item, one after the other (one connection runs one statement at a time). */
async function sequentially<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await each(item));
  return results;
}
