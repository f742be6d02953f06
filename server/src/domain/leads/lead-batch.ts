/**
 * `POST /v1/leads/batch`: up to 100 leads, each created, or updated when one matches on `external_id` or e-mail.
 * Atomic per item, not per batch: each item runs under a savepoint of the call's one transaction, so an item that
 * fails is undone alone (its row and its events) and answers its own problem, while the others stand. The call's
 * Idempotency-Key covers the whole batch (`write()`).
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { AppError, type FieldError, toProblem } from "../../errors.ts";
import { dropEventsAfter, eventsMark, type RecordEvent } from "../events/events.service.ts";
import { createLead, toLead, updateLead } from "./leads.service.ts";
import { lockMatchingLeadRows } from "./leads.store.ts";

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
  const data: LeadBatchItem[] = [];
  for (const [index, raw] of batch.items.entries()) {
    const failed = (error: AppError): LeadBatchItem => ({ result: "failed", problem: toProblem(error, requestId) });
    const refused = itemErrors(raw, index, batch.match_on, deps.checkLead);
    if (refused) {
      data.push(failed(refused));
      continue;
    }
    const outcome = await underSavepoint(db, () => upsertOne(db, workspaceId, batch.match_on, raw as LeadCreate, deps));
    // Another call created the lead with this external_id after this one looked: it is there now, to update.
    const raced =
      outcome instanceof AppError && outcome.code === "EXTERNAL_ID_TAKEN" && batch.match_on === "external_id";
    const settled = raced
      ? await underSavepoint(db, () => upsertOne(db, workspaceId, batch.match_on, raw as LeadCreate, deps))
      : outcome;
    data.push(settled instanceof AppError ? failed(settled) : settled);
  }
  return { object: "list", data };
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

/** Why an item cannot be written before trying: not a `LeadCreate`, or without the value it is matched on. */
function itemErrors(raw: unknown, index: number, matchOn: MatchOn, check: SchemaCheck): AppError | undefined {
  const errors = check(raw, `/body/items/${index}`);
  const item = raw as LeadCreate;
  if (errors.length === 0 && item[matchOn] === undefined) {
    errors.push({ path: `body.items.${index}.${matchOn}`, message: `is required to match on ${matchOn}` });
  }
  return errors.length > 0 ? new AppError("VALIDATION_FAILED", { errors }) : undefined;
}

async function upsertOne(
  db: pg.PoolClient,
  workspaceId: string,
  matchOn: MatchOn,
  item: LeadCreate,
  { record }: LeadBatchDeps,
): Promise<LeadBatchItem> {
  const matches = await lockMatchingLeadRows(db, workspaceId, matchOn, item[matchOn] as string);
  if (matches.length > 1) {
    throw new AppError("LEAD_MATCH_AMBIGUOUS", {
      detail: `More than one lead has the e-mail address ${item.email}; match these on external_id.`,
    });
  }
  const [match] = matches;
  if (!match) return { result: "created", object: await createLead(db, workspaceId, item, record) };
  const current = toLead(match);
  const lead = await updateLead(db, workspaceId, current.id, item, record);
  return { result: lead.version === current.version ? "unchanged" : "updated", object: lead };
}
