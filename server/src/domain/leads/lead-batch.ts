/**
 * `POST /v1/leads/batch`: up to 100 leads, each created, or updated when one matches on `external_id` or e-mail.
 * Atomic per item, not per batch: an item that fails is undone alone (its row and its events) and answers its own
 * problem, while the others stand. Where a statement could fail the item (an update that moves `external_id`), it runs
 * under a savepoint of the call's one transaction; a create whose `external_id` is taken inserts nothing; an item
 * that changes nothing writes nothing. The call's Idempotency-Key covers the whole batch (`write()`).
 */
import { isDeepStrictEqual } from "node:util";
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { AppError, type FieldError, toProblem } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { dropEventsAfter, eventsMark, type RecordEvent } from "../events/events.service.ts";
import { capturedLead, createLead, type Lead, newLeadValues, toLead, updateLockedLead } from "./leads.service.ts";
import { insertLeadRows, type LeadRow, lockMatchingLeadRows } from "./leads.store.ts";

type LeadCreate = components["schemas"]["LeadCreate"];
type LeadBatchUpsert = components["schemas"]["LeadBatchUpsert"];
type LeadBatchItem = components["schemas"]["LeadBatchItem"];
type LeadBatchResults = components["schemas"]["LeadBatchResults"];
type MatchOn = LeadBatchUpsert["match_on"];

/** The field errors of a value at `path` (`/body/items/3`) against a schema of the contract; none when valid. */
type SchemaCheck = (value: unknown, path: string) => FieldError[];

export interface LeadBatchDeps {
  record: RecordEvent;
  /** The contract's `LeadCreate`, for one item (http/schema-check.ts). */
  checkLead: SchemaCheck;
}

/**
 * @example
 * await upsertLeads(client, workspaceId, { match_on: "external_id", items }, request.id, deps);
 */
export async function upsertLeads(
  db: pg.PoolClient,
  workspaceId: string,
  batch: LeadBatchUpsert,
  requestId: string,
  deps: LeadBatchDeps,
): Promise<LeadBatchResults> {
  const { match_on: matchOn } = batch;
  const checked = batch.items.map((raw, index) => ({
    item: raw as LeadCreate,
    refused: itemErrors(raw, index, batch, deps),
  }));
  // Every lead the batch may match, locked at once (lockMatchingLeadRows): one statement rather than one per item.
  const keys = checked.flatMap(({ item, refused }) => (refused ? [] : [item[matchOn] as string]));
  const matches = new Map<string, Lead[]>();
  for (const row of await lockMatchingLeadRows(db, workspaceId, matchOn, keys)) {
    const key = keyOf(matchOn, toLead(row)[matchOn] as string);
    matches.set(key, [...(matches.get(key) ?? []), toLead(row)]);
  }
  const inserted = await insertCreates(db, workspaceId, checked, matches, matchOn);
  const data: LeadBatchItem[] = [];
  for (const [index, { item, refused }] of checked.entries()) {
    const failed = (error: AppError): LeadBatchItem => ({ result: "failed", problem: toProblem(error, requestId) });
    if (refused) {
      data.push(failed(refused));
      continue;
    }
    const key = keyOf(matchOn, item[matchOn] as string);
    const row = inserted.get(index);
    let outcome = row
      ? { result: "created" as const, object: await capturedLead(db, workspaceId, row, deps.record) }
      : await upsertOne(db, workspaceId, matches.get(key) ?? [], item, deps);
    // Another call created the lead with this external_id after this one looked: it is there now, to update.
    if (outcome instanceof AppError && outcome.code === "EXTERNAL_ID_TAKEN" && matchOn === "external_id") {
      const found = (await lockMatchingLeadRows(db, workspaceId, matchOn, [key])).map(toLead);
      outcome = await upsertOne(db, workspaceId, found, item, deps);
    }
    if (outcome instanceof AppError) {
      data.push(failed(outcome));
      continue;
    }
    // A later item with the same key matches the lead as this one left it.
    if (outcome.object) matches.set(key, [outcome.object]);
    data.push(outcome);
  }
  return { object: "list", data };
}

/**
 * The rows of the items that create a lead (valid, the first of their key, matching none), inserted in one statement;
 * the loop then records their events in item order. An item missing here (its external_id was taken meanwhile) goes
 * the way of the others, one at a time.
 */
async function insertCreates(
  db: pg.PoolClient,
  workspaceId: string,
  checked: readonly { item: LeadCreate; refused: AppError | undefined }[],
  matches: ReadonlyMap<string, Lead[]>,
  matchOn: MatchOn,
): Promise<Map<number, LeadRow>> {
  const seen = new Set<string>();
  const creates: { index: number; id: string; values: ReturnType<typeof newLeadValues> }[] = [];
  for (const [index, { item, refused }] of checked.entries()) {
    if (refused) continue;
    const key = keyOf(matchOn, item[matchOn] as string);
    if (!seen.has(key) && !matches.has(key)) creates.push({ index, id: newId("lead"), values: newLeadValues(item) });
    seen.add(key);
  }
  if (creates.length === 0) return new Map();
  const rows = new Map((await insertLeadRows(db, workspaceId, creates)).map((row) => [row.id, row]));
  return new Map(creates.flatMap(({ index, id }) => (rows.has(id) ? [[index, rows.get(id) as LeadRow]] : [])));
}

/** The map key of a matched value: an e-mail address matches in any case. */
function keyOf(matchOn: MatchOn, value: string): string {
  return matchOn === "email" ? value.toLowerCase() : value;
}

/** Why an item cannot be written before trying: not a `LeadCreate`, or without the value it is matched on. */
function itemErrors(raw: unknown, index: number, batch: LeadBatchUpsert, deps: LeadBatchDeps): AppError | undefined {
  const errors = deps.checkLead(raw, `/body/items/${index}`);
  const matchOn = batch.match_on;
  if (errors.length === 0 && (raw as LeadCreate)[matchOn] === undefined) {
    errors.push({ path: `body.items.${index}.${matchOn}`, message: `is required to match on ${matchOn}` });
  }
  return errors.length > 0 ? new AppError("VALIDATION_FAILED", { errors }) : undefined;
}

/** One item against the leads it matched (locked): created, updated, unchanged, or the AppError it failed with. */
async function upsertOne(
  db: pg.PoolClient,
  workspaceId: string,
  matched: readonly Lead[],
  item: LeadCreate,
  { record }: LeadBatchDeps,
): Promise<LeadBatchItem | AppError> {
  if (matched.length > 1) {
    return new AppError("LEAD_MATCH_AMBIGUOUS", {
      detail: `More than one lead has the e-mail address ${item.email}; match these on external_id.`,
    });
  }
  const [current] = matched;
  if (!current) {
    // A taken external_id inserts nothing (insertLeadRow): nothing to undo, no savepoint.
    try {
      return { result: "created", object: await createLead(db, workspaceId, item, record) };
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
  }
  if (unchanged(current, item)) return { result: "unchanged", object: current };
  const update = async (): Promise<LeadBatchItem> => {
    const lead = await updateLockedLead(db, workspaceId, current, item, record);
    return { result: lead.version === current.version ? "unchanged" : "updated", object: lead };
  };
  // Only a new external_id can fail the update (taken by another lead); the update of a locked row cannot otherwise.
  const movesExternalId = item.external_id !== undefined && item.external_id !== current.external_id;
  return movesExternalId ? underSavepoint(db, update) : update();
}

/** Whether the item would change nothing of `current`: then no write, no savepoint, no event. */
function unchanged(current: Lead, item: LeadCreate): boolean {
  return Object.entries(item).every(([field, value]) =>
    field === "tags"
      ? isDeepStrictEqual([...new Set(value as string[])], current.tags)
      : isDeepStrictEqual(value, current[field as keyof Lead]),
  );
}

/** `write`'s outcome, or its AppError with all it did undone (rows and events); any other failure fails the call. */
async function underSavepoint<T>(db: pg.PoolClient, write: () => Promise<T>): Promise<T | AppError> {
  const mark = eventsMark(db);
  await db.query("SAVEPOINT batch_item");
  try {
    const outcome = await write();
    await db.query("RELEASE SAVEPOINT batch_item");
    return outcome;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await db.query("ROLLBACK TO SAVEPOINT batch_item");
    dropEventsAfter(db, mark);
    return error;
  }
}
