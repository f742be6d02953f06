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
import { createHash } from "node:crypto";
import type pg from "pg";
import { releaseAfterFailure, withTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";

const IDEMPOTENCY_TTL_HOURS = 24;
/** PostgreSQL's lock_not_available: lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = "55P03";
/** How much longer than the lock wait the statement that waits may take. */
const STATEMENT_MARGIN_MS = 1_000;

export interface WriteAnswer<T = unknown> {
  status: number;
  body: T;
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
  return createHash("sha256")
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`)
    .digest();
}

interface StoredAnswer<T> {
  fingerprint: Buffer;
  response_status: number;
  response_body: T;
}

function replayOf<T>(stored: StoredAnswer<T>, print: Buffer): { answer: WriteAnswer<T>; replayed: true } {
  if (!stored.fingerprint.equals(print)) {
    throw new AppError("IDEMPOTENCY_KEY_REUSED", {
      detail: "This Idempotency-Key was used with another method, path or body; use a new key for a new request.",
    });
  }
  return { answer: { status: stored.response_status, body: stored.response_body }, replayed: true };
}

/** SQLSTATE of `record_idempotency_key()`: another request with the same key committed first. */
const KEY_TAKEN = "IK001";

/**
 * Runs `effect` in a transaction, idempotently when `context.key` is set. Returns the answer and whether it is a
 * replay.
 *
 * With a key, the statements cost no round trip more than a plain write: the look-up of a stored answer travels
 * with BEGIN, and the key is recorded with its lock timeout and COMMIT in one query. The key row is inserted after the
 * effect: a duplicate that runs meanwhile blocks on that insert until the first commits, records nothing, and
 * `record_idempotency_key()` (migration 0007) raises IK001 so that its COMMIT does not run; it then rolls its own
 * effect back and replays the first answer.
 */
export async function idempotentWrite<T>(
  pool: pg.Pool,
  context: IdempotencyContext,
  effect: (client: pg.PoolClient) => Promise<WriteAnswer<T>>,
): Promise<{ answer: WriteAnswer<T>; replayed: boolean }> {
  if (context.key === undefined) {
    return { answer: await withTransaction(pool, effect), replayed: false };
  }
  const print = fingerprint(context.method, context.path, context.body);
  const client = await pool.connect();
  // Parameters cannot travel in a multi-statement query: values are escaped by pg (escapeLiteral), the key is
  // printable ASCII (the contract's pattern), and the fingerprint is hex.
  const workspace = client.escapeLiteral(context.workspaceId);
  const key = client.escapeLiteral(context.key);
  const lookup = `SELECT fingerprint, response_status, response_body FROM idempotency_keys
    WHERE workspace_id = ${workspace} AND key = ${key} AND expires_at > now()`;
  const waitMs = Math.trunc(context.inFlightWaitMs);
  let released = false;
  const release = (error?: Error | boolean) => {
    released = true;
    client.release(error);
  };
  try {
    const [, found] = (await client.query(`BEGIN; ${lookup}`)) as unknown as [
      pg.QueryResult,
      pg.QueryResult<StoredAnswer<T>>,
    ];
    const stored = found.rows[0];
    if (stored) {
      await client.query("ROLLBACK");
      release();
      return replayOf(stored, print);
    }
    const answer = await effect(client);
    // The insert may wait for a duplicate in flight up to the lock timeout: the statement timeouts (the server's
    // and the client's) are raised above it for the rest of the transaction, or they would end the wait first. A
    // key taken meanwhile is an error (IK001), which stops the query before its COMMIT.
    await client.query({
      text: `SET LOCAL lock_timeout = ${waitMs};
      SET LOCAL statement_timeout = ${waitMs + STATEMENT_MARGIN_MS};
      SELECT record_idempotency_key(${workspace}, ${key}, '\\x${print.toString("hex")}', ${Math.trunc(answer.status)},
        ${client.escapeLiteral(JSON.stringify(answer.body ?? null))}::jsonb, ${IDEMPOTENCY_TTL_HOURS});
      COMMIT`,
      query_timeout: waitMs + 2 * STATEMENT_MARGIN_MS,
    } as pg.QueryConfig);
    release();
    return { answer, replayed: false };
  } catch (error) {
    if (released) throw error;
    // Whatever failed, the effect is undone: rolled back, or the connection dropped (PostgreSQL rolls it back).
    if ((error as { code?: string }).code !== KEY_TAKEN) {
      await releaseAfterFailure(client, error);
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) {
        throw new AppError("IDEMPOTENCY_KEY_IN_USE", {
          detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
          headers: { "Retry-After": "1" },
          cause: error,
        });
      }
      throw error;
    }
    try {
      await client.query("ROLLBACK");
      const { rows } = await client.query<StoredAnswer<T>>(lookup);
      release();
      if (rows[0]) return replayOf(rows[0], print);
      throw new AppError("IDEMPOTENCY_KEY_IN_USE", { headers: { "Retry-After": "1" } });
    } catch (failure) {
      if (!released) release(failure instanceof Error ? failure : true);
      throw failure;
    }
  }
}
