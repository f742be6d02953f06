/**
 * Idempotent writes. With an `Idempotency-Key`, the key is claimed, the effect runs and its answer is stored, all
 * in one transaction: a crash leaves neither the effect nor the key, and a retry after a success replays the
 * stored answer (`Idempotent-Replayed: true`) instead of writing again.
 *
 * A second request with the same key while the first is in flight waits on the first's row (PostgreSQL's unique
 * index does the waiting, across processes), then replays its answer; past `inFlightWaitMs` it is a 409
 * `IDEMPOTENCY_KEY_IN_USE`. The same key with another method, path or body is a 422 `IDEMPOTENCY_KEY_REUSED`.
 * Keys are scoped to the workspace and kept 24 hours; a failed write (an error answer) keeps no key, so that it can
 * be retried.
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../../db/transaction.ts";
import { AppError } from "../../http/errors.ts";

export const IDEMPOTENCY_TTL_HOURS = 24;
/** How long a duplicate waits for the first request before answering 409 (IDEMPOTENCY_WAIT_MS). */
export const DEFAULT_IN_FLIGHT_WAIT_MS = 10_000;
/** PostgreSQL's lock_not_available: lock_timeout ran out. */
const LOCK_NOT_AVAILABLE = "55P03";

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
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function fingerprint(method: string, path: string, body: unknown): Buffer {
  return createHash("sha256")
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`)
    .digest();
}

/**
 * Runs `effect` in a transaction, idempotently when `context.key` is set. Returns the answer and whether it is a
 * replay.
 */
export async function idempotentWrite<T>(
  pool: pg.Pool,
  context: IdempotencyContext,
  effect: (client: pg.PoolClient) => Promise<WriteAnswer<T>>,
): Promise<{ answer: WriteAnswer<T>; replayed: boolean }> {
  if (context.key === undefined) {
    return { answer: await withTransaction(pool, effect), replayed: false };
  }
  const key = context.key;
  const print = fingerprint(context.method, context.path, context.body);
  try {
    return await withTransaction(
      pool,
      async (client) => {
        const claimed = await client.query(
          `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, expires_at)
         VALUES ($1, $2, $3, 0, now() + make_interval(hours => $4))
         ON CONFLICT (workspace_id, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, response_status = 0, response_body = NULL,
               created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at <= now()
         RETURNING 1`,
          [context.workspaceId, key, print, IDEMPOTENCY_TTL_HOURS],
        );
        if (claimed.rowCount === 0) {
          const { rows } = await client.query<{ fingerprint: Buffer; response_status: number; response_body: T }>(
            "SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE workspace_id = $1 AND key = $2",
            [context.workspaceId, key],
          );
          const stored = rows[0];
          if (!stored) throw new AppError("IDEMPOTENCY_KEY_IN_USE");
          if (!stored.fingerprint.equals(print)) {
            throw new AppError("IDEMPOTENCY_KEY_REUSED", {
              detail:
                "This Idempotency-Key was used with another method, path or body; use a new key for a new request.",
            });
          }
          return { answer: { status: stored.response_status, body: stored.response_body }, replayed: true };
        }
        await client.query("SET LOCAL lock_timeout = 0");
        const answer = await effect(client);
        await client.query(
          "UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE workspace_id = $1 AND key = $2",
          [context.workspaceId, key, answer.status, JSON.stringify(answer.body ?? null)],
        );
        return { answer, replayed: false };
      },
      // The wait for a duplicate in flight: the claim below blocks on its uncommitted row at most this long.
      `SET LOCAL lock_timeout = ${Math.trunc(context.inFlightWaitMs)}`,
    );
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) {
      throw new AppError("IDEMPOTENCY_KEY_IN_USE", {
        detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
        headers: { "Retry-After": "1" },
        cause: error,
      });
    }
    throw error;
  }
}
