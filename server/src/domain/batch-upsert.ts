/**
 * The batch upserts (`POST /v1/leads/batch`, `POST /v1/tickets/batch`): up to 100 items, each created, or updated
 * when an object matches its key. Every item is checked against the contract alone; the objects the batch may match
 * are locked at once; the items are then written in order, each answering its own result.
 *
 * Atomic per item, not per batch: an item that fails is undone alone (its rows and its events) and answers its own
 * problem, while the others stand. Where a statement could fail the item (`risky`), it runs under a savepoint of the
 * call's one transaction; an item that changes nothing writes nothing. The call's Idempotency-Key covers the whole
 * batch (`write()`). An item's `expected_version` applies it only to a matched object at that version (412
 * `PRECONDITION_FAILED` otherwise, as `If-Match` for one object: preconditions.ts).
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { AppError, type FieldError, toProblem } from "../errors.ts";
import { dropEventsAfter, eventsMark } from "./events/events.service.ts";
import { staleItem } from "./preconditions.ts";

type BatchItemResult = components["schemas"]["BatchItemResult"];
type Problem = components["schemas"]["Problem"];

/** The field errors of a value at `path` (`/body/items/3`) against a schema of the contract (http/schema-check.ts). */
export type SchemaCheck = (value: unknown, path: string) => FieldError[];

export interface BatchItem<Object> {
  result: BatchItemResult;
  object?: Object;
  problem?: Problem;
}

/** What a batch needs to know of one kind of object. `Item` is the contract's create schema of it. */
export interface BatchKind<Item, Object extends { id: string; version: number }> {
  /** The item's contract (`LeadBatchUpsertItem`, `TicketBatchUpsertItem`). */
  validateItem: SchemaCheck;
  /** The field an item is matched on, which it must carry. */
  matchOn: keyof Item & keyof Object & string;
  /** The value that two matching keys share (an e-mail address matches in any case). */
  keyOf(value: string): string;
  /** The objects whose key is one of `keys`, locked until the transaction ends. */
  lockMatches(db: pg.PoolClient, keys: readonly string[]): Promise<Object[]>;
  /** The 409 of an item whose key matches more than one object; absent where keys are unique. */
  ambiguous?(item: Item): AppError;
  /**
   * The objects of the items that create one, inserted at once where the kind can, without their events: aligned
   * with `items`, undefined where nothing was inserted (the item then goes the way of the others, one at a time).
   */
  insertMany?(db: pg.PoolClient, items: readonly Item[]): Promise<(Object | undefined)[]>;
  /** Records the creation event of an object `insertMany` inserted. */
  created?(db: pg.PoolClient, object: Object): Promise<Object>;
  create(db: pg.PoolClient, item: Item): Promise<Object>;
  /** Whether the item would change nothing of `current`: then no write, no savepoint, no event. */
  unchanged(current: Object, item: Item): boolean;
  /** `current` (locked) changed by the item's fields; may write nothing when the item changes nothing after all. */
  update(db: pg.PoolClient, current: Object, item: Item): Promise<Object>;
  /** Whether a statement of this item's write could fail it (`current` undefined: a create); it then gets a savepoint. */
  risky(current: Object | undefined, item: Item): boolean;
}

/**
 * @example
 * await upsertBatch(client, items, request.id, leadBatchKind(workspaceId, deps)); // { object: "list", data: [...] }
 */
export async function upsertBatch<Item, Object extends { id: string; version: number }>(
  db: pg.PoolClient,
  items: readonly unknown[],
  requestId: string,
  kind: BatchKind<Item, Object>,
): Promise<{ object: "list"; data: BatchItem<Object>[] }> {
  const checked = items.map((raw, index) => {
    const refused = itemErrors(raw, index, kind);
    const { expected_version: expected, ...item } = raw as Item & { expected_version?: number };
    return { item: item as Item, expected, refused };
  });
  const keyOf = (item: Item) => kind.keyOf(item[kind.matchOn] as string);
  const keys = checked.flatMap(({ item, refused }) => (refused ? [] : [item[kind.matchOn] as string]));
  const matches = new Map<string, Object[]>();
  for (const object of await kind.lockMatches(db, keys)) {
    const key = kind.keyOf(object[kind.matchOn] as string);
    matches.set(key, [...(matches.get(key) ?? []), object]);
  }
  const inserted = await insertCreates(db, checked, matches, keyOf, kind);
  const data: BatchItem<Object>[] = [];
  for (const [index, { item, expected, refused }] of checked.entries()) {
    const failed = (error: AppError): BatchItem<Object> => ({
      result: "failed",
      problem: toProblem(withinItem(error, index), requestId),
    });
    if (refused) {
      data.push(failed(refused));
      continue;
    }
    const key = keyOf(item);
    const object = inserted.get(index);
    let outcome =
      object && kind.created
        ? { result: "created" as const, object: await kind.created(db, object) }
        : await upsertOne(db, matches.get(key) ?? [], item, expected, kind);
    // Another call created the object with this key after this one looked: it is there now, to update.
    if (outcome instanceof AppError && outcome.code === "EXTERNAL_ID_TAKEN" && kind.matchOn === "external_id") {
      outcome = await upsertOne(db, await kind.lockMatches(db, [key]), item, expected, kind);
    }
    if (outcome instanceof AppError) {
      data.push(failed(outcome));
      continue;
    }
    // A later item with the same key matches the object as this one left it.
    if (outcome.object) matches.set(key, [outcome.object]);
    data.push(outcome);
  }
  return { object: "list", data };
}

/** Why an item cannot be written before trying: not the kind's create schema, or without the value it is matched on. */
function itemErrors<Item, Object extends { id: string; version: number }>(
  raw: unknown,
  index: number,
  kind: BatchKind<Item, Object>,
) {
  const errors = kind.validateItem(raw, `/body/items/${index}`);
  if (errors.length === 0 && (raw as Item)[kind.matchOn] === undefined) {
    errors.push({ path: `body.items.${index}.${kind.matchOn}`, message: `is required to match on ${kind.matchOn}` });
  }
  return errors.length > 0 ? new AppError("VALIDATION_FAILED", { errors }) : undefined;
}

/**
 * The objects of the items that create one (valid, the first of their key, matching none), inserted in one statement
 * where the kind can; the loop then records their events in item order.
 */
async function insertCreates<Item, Object extends { id: string; version: number }>(
  db: pg.PoolClient,
  checked: readonly { item: Item; expected: number | undefined; refused: AppError | undefined }[],
  matches: ReadonlyMap<string, Object[]>,
  keyOf: (item: Item) => string,
  kind: BatchKind<Item, Object>,
): Promise<Map<number, Object>> {
  if (!kind.insertMany) return new Map();
  const seen = new Set<string>();
  const creates: number[] = [];
  for (const [index, { item, expected, refused }] of checked.entries()) {
    // An item that expects a version creates nothing: it fails in the loop, matching none.
    if (refused || expected !== undefined) continue;
    if (!seen.has(keyOf(item)) && !matches.has(keyOf(item))) creates.push(index);
    seen.add(keyOf(item));
  }
  if (creates.length === 0) return new Map();
  const objects = await kind.insertMany(
    db,
    creates.map((index) => checked[index]?.item as Item),
  );
  return new Map(creates.flatMap((index, n) => (objects[n] ? [[index, objects[n]] as const] : [])));
}

/** One item against the objects it matched (locked): created, updated, unchanged, or the AppError it failed with. */
async function upsertOne<Item, Object extends { id: string; version: number }>(
  db: pg.PoolClient,
  matched: readonly Object[],
  item: Item,
  expected: number | undefined,
  kind: BatchKind<Item, Object>,
): Promise<BatchItem<Object> | AppError> {
  if (matched.length > 1) {
    if (!kind.ambiguous) throw new Error(`${matched.length} objects share the unique ${kind.matchOn} of one item`);
    return kind.ambiguous(item);
  }
  const [current] = matched;
  const stale = expected === undefined ? undefined : staleItem(expected, current);
  if (stale) return stale;
  if (current && kind.unchanged(current, item)) return { result: "unchanged", object: current };
  const write = async (): Promise<BatchItem<Object>> => {
    if (!current) return { result: "created", object: await kind.create(db, item) };
    const object = await kind.update(db, current, item);
    return { result: object.version === current.version ? "unchanged" : "updated", object };
  };
  return kind.risky(current, item) ? underSavepoint(db, write) : orAppError(write);
}

/** `write`'s outcome, or the AppError it failed with (having written nothing); any other failure fails the call. */
async function orAppError<T>(write: () => Promise<T>): Promise<T | AppError> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
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

/**
 * An item's problem, its field paths told as the item's (`body.custom_attributes.plan` of item 3 is
 * `body.items.3.custom_attributes.plan`): the services that write one item name the fields of a body of their own.
 */
function withinItem(error: AppError, index: number): AppError {
  if (!error.errors?.some((field) => field.path.startsWith("body.") && !field.path.startsWith("body.items."))) {
    return error;
  }
  const errors = error.errors.map((field) =>
    field.path.startsWith("body.items.")
      ? field
      : { ...field, path: field.path.replace(/^body\./, `body.items.${index}.`) },
  );
  return new AppError(error.code, {
    ...(error.detail !== undefined && { detail: error.detail }),
    errors,
    headers: error.headers,
  });
}
