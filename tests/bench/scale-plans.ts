/**
 * Query plans for bench:scale, of the very SQL the service runs: the domain function (e.g. `listLeads`) is called
 * with a connection that records its query instead of running it, then the recorded statement is prepared, run
 * five times (after five runs PostgreSQL may switch a prepared statement to its generic plan, as it does on the
 * service's connections, where pg prepares named statements once) and explained on the sixth run.
 */
import type pg from "pg";

export interface CapturedQuery {
  name?: string;
  text: string;
  values: unknown[];
}

/** Calls `use` with a connection that records every query and answers it with no rows. */
export async function captureQueries(use: (db: pg.PoolClient) => Promise<unknown>): Promise<CapturedQuery[]> {
  const captured: CapturedQuery[] = [];
  const recorder = {
    query: async (config: string | pg.QueryConfig, values?: unknown[]) => {
      captured.push(
        typeof config === "string"
          ? { text: config, values: values ?? [] }
          : { name: config.name, text: config.text, values: config.values ?? values ?? [] },
      );
      return { rows: [], rowCount: 0 };
    },
  } as unknown as pg.PoolClient;
  // An empty answer may be an error for the function (e.g. LEAD_NOT_FOUND): only the query matters here.
  await use(recorder).catch(() => undefined);
  return captured;
}

const literal = (client: pg.PoolClient, value: unknown) =>
  typeof value === "number" ? String(value) : client.escapeLiteral(String(value));

/** EXPLAIN (ANALYZE, BUFFERS) of a recorded query, as its sixth run on one connection. */
export async function explain(pool: pg.Pool, query: CapturedQuery): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query(`PREPARE bench_plan AS ${query.text}`);
    const execute = `EXECUTE bench_plan(${query.values.map((value) => literal(client, value)).join(", ")})`;
    for (let i = 0; i < 5; i++) await client.query(execute);
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${execute}`);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  } finally {
    await client.query("DEALLOCATE ALL").catch(() => undefined);
    client.release();
  }
}

/** The execution time PostgreSQL reports at the end of a plan, in ms. */
export const executionMs = (plan: string): number =>
  Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN);
