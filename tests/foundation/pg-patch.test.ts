/**
 * pg 8.23.1 as patches/pg+8.23.1.patch carries it: a finished query is garbage at the next young-generation collection.
 * On the published package, a query made without a callback (the promise form) or with a read timeout (`query_timeout`,
 * which the service sets on every connection) is given its callback after it was made, and such a query, its result
 * and its rows survived young-generation collections and were promoted to the old generation, to be collected by
 * the next full one: about 8 KB of every query below, 17–20 KB of every `GET /v1/leads` (docs/performance.md,
 * 2026-11-28). The call forms the patch touches keep answering as before.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const run = promisify(execFile);

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

/**
 * 2,000 queries one after the other in a process whose young generation is 1 MB, so that it is collected every dozen
 * queries; V8 reports, per collection, the bytes it promoted (`--trace-gc-nvp`). One query at a time: whatever a
 * finished query leaves reachable is what survives, not the query in flight.
 */
const PROMOTION_PROBE = `
import pg from "pg";
const pool = new pg.Pool({ connectionString: process.env.PROBE_DATABASE_URL, max: 1, query_timeout: 30000 });
const sql = "SELECT g, 'row ' || g AS t, ARRAY['a', 'b'] AS tags, now() AS at FROM generate_series(1, 20) g";
const client = await pool.connect();
for (let i = 0; i < 300; i++) await client.query(sql);
console.log("measured from here");
for (let i = 0; i < 2000; i++) await client.query(sql);
console.log("measured to here");
client.release();
await pool.end();
`;

describe("pg 8.23.1 with our patch", () => {
  it("promotes nothing of finished queries to the old generation", async () => {
    const { stdout } = await run(
      process.execPath,
      ["--max-semi-space-size=1", "--trace-gc-nvp", "--input-type=module", "-e", PROMOTION_PROBE],
      { env: { ...process.env, PROBE_DATABASE_URL: database.url }, maxBuffer: 64 * 1024 * 1024 },
    );
    const lines = stdout.split("\n");
    const measured = lines.slice(lines.indexOf("measured from here"), lines.indexOf("measured to here"));
    const scavenges = measured.filter((line) => line.includes("gc=s"));
    const promoted = scavenges.reduce((sum, line) => sum + Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0), 0);
    expect(scavenges.length).toBeGreaterThan(50);
    // Without the patch: about 8,500 bytes a query.
    expect(promoted / 2000).toBeLessThan(500);
  });

  it.each([
    { form: "a promise", call: (client: pg.Client, sql: string) => client.query(sql) },
    {
      form: "a callback after the values",
      call: (client: pg.Client, sql: string) =>
        new Promise<pg.QueryResult>((resolve, reject) =>
          client.query(sql, [], (error, result) => (error ? reject(error) : resolve(result))),
        ),
    },
    {
      form: "a callback in place of the values",
      call: (client: pg.Client, sql: string) =>
        new Promise<pg.QueryResult>((resolve, reject) =>
          client.query(sql, (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result))),
        ),
    },
    {
      form: "a callback in the query's config",
      call: (client: pg.Client, sql: string) =>
        new Promise<pg.QueryResult>((resolve, reject) => {
          const config = {
            text: sql,
            callback: (error: Error | null, result: pg.QueryResult) => (error ? reject(error) : resolve(result)),
          };
          client.query(config as pg.QueryConfig);
        }),
    },
  ])("answers a query made with $form, with and without a read timeout", async ({ call }) => {
    for (const query_timeout of [undefined, 5_000]) {
      const client = new pg.Client({ connectionString: database.url, ...(query_timeout && { query_timeout }) });
      await client.connect();
      try {
        const result = await call(client, "SELECT 41 + 1 AS answer");
        expect(result.rows).toEqual([{ answer: 42 }]);
        await expect(call(client, "SELECT 1/0")).rejects.toThrow("division by zero");
      } finally {
        await client.end();
      }
    }
  });

  it("still gives up on a query that outlives its read timeout", async () => {
    const client = new pg.Client({ connectionString: database.url, query_timeout: 200 });
    client.on("error", () => undefined);
    await client.connect();
    try {
      await expect(client.query("SELECT pg_sleep(5)")).rejects.toThrow("Query read timeout");
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});
