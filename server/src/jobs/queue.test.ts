/**
 * The job queue against a real PostgreSQL and pg-boss 12: queues defined by processes that start together, options
 * that follow the newest version, and jobs that belong to the transaction they are sent in.
 */
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/database.ts";
import { startTestQueue } from "../../../tests/helpers/queue.ts";
import { withTransaction } from "../db/transaction.ts";
import { defineQueue, onClient, QUEUE_SCHEMA } from "./queue.ts";

describe("the job queue", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let queues: PgBoss[];
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on("error", () => undefined);
    // API and worker processes starting together on a fresh database.
    queues = await Promise.all([false, true, false, true].map((worker) => startTestQueue(database.url, { worker })));
  });
  afterAll(async () => {
    for (const queue of queues) await queue.stop({ graceful: false });
    await pool.end();
    await database.drop();
  });

  it("defines the same queues from processes starting together, none failing", async () => {
    const names = ["mail", "verify", "prune"];
    const outcomes = await Promise.allSettled(
      queues.flatMap((queue) => names.map((name) => defineQueue(queue, `race-${name}`, { retryLimit: 3 }))),
    );
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    const { rows } = await pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ${QUEUE_SCHEMA}.queue WHERE name LIKE 'race-%'`,
    );
    expect(rows[0]?.count).toBe(names.length);
  });

  it("sets this version's options on a queue that an earlier version created", async () => {
    const [queue] = queues as [PgBoss];
    await queue.createQueue("upgraded", { retryLimit: 1, expireInSeconds: 60 });
    await defineQueue(queue, "upgraded", { retryLimit: 7, expireInSeconds: 30, notify: true });
    expect(await queue.getQueue("upgraded")).toMatchObject({ retryLimit: 7, expireInSeconds: 30, notify: true });
  });

  it("sends a job through onClient within the transaction: gone when it rolls back, there when it commits", async () => {
    const [queue] = queues as [PgBoss];
    await defineQueue(queue, "in-transaction", {});
    const send = (id: string, fail: boolean) =>
      withTransaction(pool, async (client) => {
        await queue.insert("in-transaction", [{ id, data: { n: 1 } }], { db: onClient(client) });
        if (fail) throw new Error("the change failed");
      });
    const rolledBack = "00000000-0000-8000-8000-000000000001";
    const committed = "00000000-0000-8000-8000-000000000002";
    await expect(send(rolledBack, true)).rejects.toThrow("the change failed");
    await send(committed, false);
    // The same id again is one job, not two.
    await send(committed, false);
    expect(await queue.getJobById("in-transaction", rolledBack)).toBeNull();
    expect(await queue.getJobById("in-transaction", committed)).toMatchObject({ id: committed, data: { n: 1 } });
    expect(await queue.findJobs("in-transaction")).toHaveLength(1);
  });
});
