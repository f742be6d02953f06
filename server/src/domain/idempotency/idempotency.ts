/**
 * Idempotent writes. With an `Idempotency-Key`, the effect runs and its answer is stored under the key in one
 * transaction: a crash leaves neither the effect nor the key, and a retry after a success replays the stored
 * answer (`Idempotent-Replayed: true`) instead of writing again.
 *
 * A second request with the same key while the first is in flight waits on the first's key row (PostgreSQL's
 * unique index does the waiting, across processes), then replays its answer; past `inFlightWaitMs` it is a 409
 * `IDEMPOTENCY_KEY_IN_USE`. The same key with another method, path or body is a 422 `IDEMPOTENCY_KEY_REUSED`.
 * Keys are scoped to the workspace and kept 24 hours; a failed write (an error answer) keeps no key, so that it can
 * be retried.
 */
import { hash } from "node:crypto";
import type pg from "pg";
import { type BeforeCommit, releaseAfterFailure, withTransaction } from "../../db/transaction.ts";
import { isDatabaseUnavailable } from "../../db/unavailable.ts";
import { AppError } from "../../errors.ts";

const IDEMPOTENCY_TTL_HOURS = 24;
/** PostgreSQL's lock_not_available: lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = "55P03";
/** How much longer than the lock wait the statement that waits may take. */
const STATEMENT_MARGIN_MS = 1_000;

export interface WriteAnswer<T = unknown> {
  status: number;
  body: T;
  /** Headers that belong to the answer and are replayed with it (`Location` of a 201). */
  headers?: Record<string, string>;
}

export interface IdempotencyContext {
  workspaceId: string;
  /** How long to wait for a request in flight with the same key. */
  inFlightWaitMs: number;
  key: string | undefined;
  method: string;
  path: string;
  body: unknown;
}

/** JSON with object keys sorted, so that the same body serialised in another key order has the same fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function fingerprint(method: string, path: string, body: unknown): Buffer {
  return hash("sha256", `${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`, "buffer");
}

interface StoredAnswer {
  fingerprint: Buffer;
  response_status: number;
  /**
   * The body as it was sent (a key of the version before migration 0012 has only its jsonb, as text). Remove when: no
   * key stored before 0012 is kept (24 hours after the last process older than 0012 stopped), with the coalesce below.
   */
  response_text: string;
  response_headers: Record<string, string> | null;
}

function replayOf<T>(stored: StoredAnswer, print: Buffer): { answer: WriteAnswer<T>; replayed: true } {
  if (!stored.fingerprint.equals(print)) {
    throw new AppError("IDEMPOTENCY_KEY_REUSED", {
      detail: "This Idempotency-Key was used with another method, path or body; use a new key for a new request.",
    });
  }
  // JSON.parse keeps the text's key order, and the answer was JSON.stringify's: sent again, it is the same bytes.
  const body = JSON.parse(stored.response_text) as T;
  const headers = stored.response_headers ?? undefined;
  return { answer: { status: stored.response_status, body, ...(headers && { headers }) }, replayed: true };
}

/** SQLSTATE of `save_idempotent_answer()`: another request with the same key committed first. */
const KEY_TAKEN = "IK001";

/**
 * Runs `effect` in a transaction, idempotently when `context.key` is set. Returns the answer and whether it is a
 * replay.
 *
 * Optimistic: the effect runs first, and its key is recorded with its answer, its lock timeout and COMMIT in one query
 * (after `beforeCommit`'s statements: the change's events, write-handler.ts).
 * A key that another request recorded first, committed or in flight, makes `save_idempotent_answer()` (migrations
 * 0012, 0015) raise IK001 once that request commits (the insert waits on the unique index until then), which stops the
 * query before its COMMIT. Whenever the write does not commit, its effect is rolled back and a stored answer under the
 * key, if any, is what the caller gets: a retry replays the first answer rather than the error its second run met
 * (a lead's `external_id` already taken by the first run, a ticket already moved, a lead already deleted).
 *
 * So a first request costs no look-up: it is one statement less for PostgreSQL to parse, plan and run on every
 * idempotent write, and the rare retry pays for it by running its effect once more and rolling it back.
 */
export async function idempotentWrite<T>(
  pool: pg.Pool,
  context: IdempotencyContext,
  effect: (client: pg.PoolClient) => Promise<WriteAnswer<T>>,
  beforeCommit?: BeforeCommit,
): Promise<{ answer: WriteAnswer<T>; replayed: boolean }> {
  if (context.key === undefined) {
    return { answer: await withTransaction(pool, effect, beforeCommit), replayed: false };
  }
  const print = fingerprint(context.method, context.path, context.body);
  const client = await pool.connect();
  // Parameters cannot travel in a multi-statement query: values are escaped by pg (escapeLiteral), the key is
  // printable ASCII (the contract's pattern), and the fingerprint is hex.
  const workspace = client.escapeLiteral(context.workspaceId);
  const key = client.escapeLiteral(context.key);
  const waitMs = Math.trunc(context.inFlightWaitMs);
  let committed = false;
  try {
    await client.query("BEGIN");
    const answer = await effect(client);
    // The insert may wait for a duplicate in flight up to the lock timeout: the statement timeouts (the server's
    // and the client's) are raised above it for the rest of the transaction, or they would end the wait first.
    await client.query({
      text: `${beforeCommit?.(client) ?? ""}SET LOCAL lock_timeout = ${waitMs};
      SET LOCAL statement_timeout = ${waitMs + STATEMENT_MARGIN_MS};
      SELECT save_idempotent_answer(${workspace}, ${key}, '\\x${print.toString("hex")}', ${Math.trunc(answer.status)},
        ${client.escapeLiteral(JSON.stringify(answer.body ?? null))},
        ${answer.headers ? `${client.escapeLiteral(JSON.stringify(answer.headers))}::jsonb` : "NULL"},
        ${IDEMPOTENCY_TTL_HOURS});
      COMMIT`,
      query_timeout: waitMs + 2 * STATEMENT_MARGIN_MS,
    } as pg.QueryConfig);
    committed = true;
    client.release();
    return { answer, replayed: false };
  } catch (error) {
    if (committed) throw error;
    return await answerAfterFailure(client, error, { workspace, key, print });
  }
}

/**
 * The answer to a write with a key that did not commit (its effect is undone): the answer stored under the key when
 * there is one, else the failure itself, or a 409 when the key was taken by a request that is still in flight.
 */
async function answerAfterFailure<T>(
  client: pg.PoolClient,
  error: unknown,
  stored: { workspace: string; key: string; print: Buffer },
): Promise<{ answer: WriteAnswer<T>; replayed: true }> {
  // A connection that failed is not asked again (PostgreSQL rolls its transaction back itself).
  if (isDatabaseUnavailable(error)) {
    await releaseAfterFailure(client, error);
    throw error;
  }
  let found: StoredAnswer | undefined;
  try {
    await client.query("ROLLBACK");
    const { rows } = await client.query<StoredAnswer>(
      `SELECT fingerprint, response_status, coalesce(response_text, response_body::text) AS response_text,
          response_headers FROM idempotency_keys
        WHERE workspace_id = ${stored.workspace} AND key = ${stored.key} AND expires_at > now()`,
    );
    found = rows[0];
  } catch (failure) {
    // Whether an answer is stored is unknown: the failure to find out is the answer (a 503 when the database is away).
    client.release(failure instanceof Error ? failure : true);
    throw failure;
  }
  client.release();
  if (found) return replayOf(found, stored.print);
  const code = (error as { code?: string }).code;
  if (code === KEY_TAKEN || code === LOCK_NOT_AVAILABLE) {
    throw new AppError("IDEMPOTENCY_KEY_IN_USE", {
      detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
      headers: { "Retry-After": "1" },
      cause: error,
    });
  }
  throw error;
}
