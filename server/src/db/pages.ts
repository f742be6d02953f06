/**
 * Keyset pages, newest first, scoped to a workspace. The SQL text is built only from the fixed fragments that the
 * stores pass (column names, operators) and the page's row count (`rowLimit`); every value is a parameter.
 */
import { hash } from "node:crypto";
import type pg from "pg";
import type { AppError } from "../errors.ts";
import { decodeCursor, toPage } from "../lib/cursor.ts";
import { type IdKind, idPattern } from "../lib/ids.ts";
import type { Queryable } from "./queryable.ts";

export interface PageQuery {
  /** `FROM …` target with its fixed columns, e.g. `SELECT * FROM leads`. */
  select: string;
  workspaceId: string;
  /** Extra conditions as [SQL with one `?` placeholder, value]; undefined values are skipped. */
  filters: [string, unknown][];
  limit: number;
  after: string | undefined;
  /** pg's types for the rows, when some column reads otherwise than by default (timestamps.ts's WIRE_TIMESTAMPS). */
  types?: pg.CustomTypesConfig;
}

/** Fetches `limit + 1` rows newest first (the extra row tells whether another page follows). */
async function fetchPage<Row>(db: Queryable, query: PageQuery): Promise<Row[]> {
  const values: unknown[] = [query.workspaceId];
  const conditions = ["workspace_id = $1"];
  for (const [sql, value] of query.filters) {
    if (value === undefined) continue;
    values.push(value);
    conditions.push(sql.replace("?", `$${values.length}`));
  }
  if (query.after !== undefined) {
    values.push(query.after);
    conditions.push(`id < $${values.length}`);
  }
  const text = `${query.select} WHERE ${conditions.join(" AND ")} ORDER BY id DESC LIMIT ${rowLimit(query.limit + 1)}`;
  const { rows } = await db.query<Row & pg.QueryResultRow>({
    name: statementName(text),
    text,
    values,
    ...(query.types && { types: query.types }),
  });
  return rows;
}

/** The contract's page size when the caller names none. */
const DEFAULT_PAGE_SIZE = 20;

/** A list operation's page query: `limit` and the opaque `cursor` of the page before. */
export interface PageParams {
  limit?: number;
  cursor?: string;
}

/**
 * One page of a workspace's list, newest first, as the list envelope: the cursor is checked to be an id of `kind`
 * (else 400 `INVALID_CURSOR`), and each row becomes its wire shape through `toItem`.
 *
 * @example
 * await listPage(db, { select: "SELECT * FROM leads", kind: "lead", workspaceId, filters: [["status = ?", "new"]] },
 *   { limit: 20 }, toLead)
 */
export async function listPage<Row extends { id: string }, Item>(
  db: Queryable,
  list: Omit<PageQuery, "limit" | "after"> & { kind: IdKind },
  page: PageParams,
  toItem: (row: Row) => Item,
) {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  const after = decodeCursor(page.cursor, idPattern(list.kind));
  const rows = await fetchPage<Row>(db, {
    select: list.select,
    workspaceId: list.workspaceId,
    filters: list.filters,
    limit,
    after,
    ...(list.types && { types: list.types }),
  });
  const envelope = toPage(rows, limit);
  return { ...envelope, data: envelope.data.map(toItem) };
}

/**
 * The row of `table` with this id in this workspace, or the caller's not-found error: another workspace's id is
 * as unknown as an id that never existed.
 */
export async function findInWorkspace<Row>(
  db: Queryable,
  table: string,
  workspaceId: string,
  id: string,
  notFound: () => AppError,
  options: {
    /** Lock the row until the transaction ends (a write that reads, then changes it). */
    forUpdate?: boolean;
    /** The store's fixed select list, when a column reads as more than its stored value; `*` when none. */
    columns?: string;
    /** pg's types for the row, as `PageQuery.types`. */
    types?: pg.CustomTypesConfig;
  } = {},
): Promise<Row> {
  const lock = options.forUpdate ? " FOR UPDATE" : "";
  const columns = options.columns ?? "*";
  const { rows } = await db.query<Row & pg.QueryResultRow>({
    // One name per text: pg prepares a named statement once per connection.
    name: `find-${table}${options.forUpdate ? "-for-update" : ""}${options.columns ? `-${statementName(columns)}` : ""}`,
    text: `SELECT ${columns} FROM ${table} WHERE workspace_id = $1 AND id = $2${lock}`,
    values: [workspaceId, id],
    ...(options.types && { types: options.types }),
  });
  if (!rows[0]) throw notFound();
  return rows[0];
}

/**
 * A row count written into a statement's text. PostgreSQL cannot keep one plan for `LIMIT $n`: its generic plan
 * guesses the count as a tenth of the table, which always costs more than a plan made for the value, so it plans the
 * statement anew on every call. Written as a literal, each count is a statement of its own that it plans once per
 * connection. Only an integer is ever written.
 */
export function rowLimit(count: number): string {
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`row limit ${count} is not a positive integer`);
  return String(count);
}

/**
 * The names given so far, by text: the texts are a fixed set (each store's filters, each present or not, and each
 * page size the contract allows).
 */
const statementNames = new Map<string, string>();

/**
 * A name for a prepared statement: pg prepares a named statement once per connection, so PostgreSQL stops parsing
 * and planning the same list query on every call. Each filter combination and page size is one text, so one statement.
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `s_${hash("sha1", text).slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** PostgreSQL's unique_violation on a given constraint or index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === "23505" && pgError.constraint === constraint;
}

/**
 * `UPDATE table SET col = value, …, updated_at = now()` on one row of a workspace, returning the row; with `versioned`,
 * also `version = version + 1` (the caller writes only what really changes). Column names
 * come from the caller's fixed list of updatable columns, never from the request.
 */
export async function updateRow<Row>(
  db: Queryable,
  table: string,
  workspaceId: string,
  id: string,
  changes: Record<string, unknown>,
  columns: readonly string[],
  options: {
    types?: pg.CustomTypesConfig;
    /** The table's rows carry a `version` (leads, conversations, tickets): one more for this change. */
    versioned?: boolean;
  } = {},
): Promise<Row | undefined> {
  const names = Object.keys(changes).filter((name) => columns.includes(name));
  const values: unknown[] = [workspaceId, id, ...names.map((name) => changes[name])];
  const assignments = [...names.map((name, i) => `${name} = $${i + 3}`), "updated_at = now()"];
  if (options.versioned) assignments.push("version = version + 1");
  const { rows } = await db.query<Row & pg.QueryResultRow>({
    text: `UPDATE ${table} SET ${assignments.join(", ")} WHERE workspace_id = $1 AND id = $2 RETURNING *`,
    values,
    ...(options.types && { types: options.types }),
  });
  return rows[0];
}
