import type pg from "pg";
import { isDatabaseUnavailable } from "./unavailable.ts";

/**
 * Gives back a client that ran a failed transaction: rolled back and returned to the pool, or destroyed when its
 * connection failed (a ROLLBACK on a frozen server would only wait out the timeout again; PostgreSQL rolls back an
 * open transaction itself when its connection closes).
 */
export async function releaseAfterFailure(client: pg.PoolClient, error: unknown): Promise<void> {
  if (isDatabaseUnavailable(error)) {
    client.release(error instanceof Error ? error : true);
    return;
  }
  const rollback = await client.query("ROLLBACK").then(
    () => undefined,
    (failure: Error) => failure,
  );
  client.release(rollback ?? undefined);
}

/** Statements that a transaction's work left to run just before its COMMIT, in the same round trip (or ""). */
export type BeforeCommit = (client: pg.PoolClient) => string;

/**
 * Runs `work` in one transaction on one pooled client: COMMIT when it resolves, ROLLBACK when it throws.
 * `beforeCommit`'s statements (parameterless SQL) are sent with the COMMIT.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  beforeCommit?: BeforeCommit,
): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query("BEGIN");
    result = await work(client);
    await client.query(`${beforeCommit?.(client) ?? ""}COMMIT`);
  } catch (error) {
    await releaseAfterFailure(client, error);
    throw error;
  }
  client.release();
  return result;
}
