import type pg from "pg";

/**
 * Runs `work` in one transaction on one pooled client: COMMIT when it resolves, ROLLBACK when it throws.
 * `setup` is SQL without parameters (`SET LOCAL …`) sent with BEGIN in the same round trip.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  setup?: string,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(setup ? `BEGIN; ${setup}` : "BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}
