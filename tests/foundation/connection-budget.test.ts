/**
 * A host says at start how many PostgreSQL connections it opens at most, and refuses, in one line, a configuration
 * that could never fit in the server's `max_connections`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { bareEnv, runServer } from "../helpers/process.ts";

describe("the connection budget at start", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("tells the most it opens: the pools, pg-boss's and the LISTEN connections of each process", async () => {
    const server = await runServer(
      ["start"],
      bareEnv({
        DATABASE_URL: database.url,
        PORT: "0",
        NODE_ENV: "production",
        WEB_CONCURRENCY: "2",
        DB_POOL_MAX: "12",
      }),
    );
    try {
      const line = server.logs.find((log) => String(log.msg).startsWith("PostgreSQL connections"));
      // Two API processes and a worker share 12 (cluster.ts), each has its sequencer's one, plus the primary's one;
      // 3 × 5 for pg-boss; LISTEN: 3 per API process, 2 for the worker.
      expect(line).toMatchObject({
        pools: 16,
        queues: 15,
        listeners: 8,
        total: 39,
        max_connections: expect.any(Number),
      });
    } finally {
      await server.stop();
    }
  });

  it("refuses a configuration that could never fit, saying what to change", async () => {
    const started = runServer(["api"], bareEnv({ DATABASE_URL: database.url, PORT: "0", DB_POOL_MAX: "500" }));
    await expect(started).rejects.toThrow(
      /server exited with 1\ncannot start: this host would open up to 509 PostgreSQL connections \(pools 501, pg-boss 5, LISTEN 3\), more than the server ever allows \(max_connections \d+.*lower DB_POOL_MAX or WEB_CONCURRENCY, or raise max_connections/,
    );
  });
});
