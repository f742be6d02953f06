/**
 * The queue's fetch index against a real PostgreSQL and pg-boss: built once by processes that start together, and
 * used by pg-boss's fetch, which then reads a batch in order instead of sorting every waiting job.
 */
import pg from "pg";
import type PgBoss from "pg-boss";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/database.ts";
import { connectionSettings } from "../db/database.ts";
import { ensureQueue, FETCH_ORDER_INDEX, QUEUE_SCHEMA, startQueue } from "./queue.ts";

const logger = pino({ level: "silent" });
const QUEUE = "fetch-order";
const WAITING = 5_000;

describe("the job queue", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let queues: PgBoss[];
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on("error", () => undefined);
    const settings = connectionSettings(database.url, {
      databaseUrl: database.url,
      dataDir: ".data",
      dbConnectTimeoutMs: 5_000,
      dbStatementTimeoutMs: 10_000,
      dbPoolMax: 2,
    });
    // An API and a worker process starting together on a fresh database.
    queues = await Promise.all([
      startQueue(settings, logger, { worker: false }),
      startQueue(settings, logger, { worker: true }),
    ]);
  });
  afterAll(async () => {
    for (const queue of queues) await queue.stop({ graceful: false, wait: true });
    await pool.end();
    await database.drop();
  });

  it("has the fetch index once, on every queue's partition, also one created after it", async () => {
    const [queue] = queues as [PgBoss];
    await queue.createQueue(QUEUE);
    const { rows } = await pool.query<{ partitions: number; queues: number }>(
      `SELECT (SELECT count(*)::int FROM pg_inherits WHERE inhparent = to_regclass($1)) AS partitions,
              (SELECT count(*)::int FROM ${QUEUE_SCHEMA}.queue) AS queues`,
      [`${QUEUE_SCHEMA}.${FETCH_ORDER_INDEX}`],
    );
    expect(rows[0]?.queues).toBeGreaterThan(0);
    expect(rows[0]?.partitions).toBe(rows[0]?.queues);
  });

  it("lets pg-boss's fetch read a batch in order from thousands of waiting jobs, without sorting them", async () => {
    const [queue] = queues as [PgBoss];
    await queue.createQueue(QUEUE);
    await queue.insert(Array.from({ length: WAITING }, (_, i) => ({ name: QUEUE, data: { i } })));
    await pool.query(`ANALYZE ${QUEUE_SCHEMA}.job`);
    // The selection of pg-boss 10's fetchNextJob (src/plans.js), as it runs it.
    const { rows } = await pool.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT id, singleton_key, policy FROM ${QUEUE_SCHEMA}.job
        WHERE name = $1 AND state < 'active' AND start_after < now()
        ORDER BY priority desc, created_on, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [QUEUE, 50],
    );
    const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(plan).not.toMatch(/Sort/);
    expect(plan).toMatch(/Index Scan using \S+_name_priority_created_on_id_idx/);
    expect(await queue.fetch(QUEUE, { batchSize: 50 })).toHaveLength(50);
  });

  it("creates the same queues from processes starting together, none failing on a deadlock", async () => {
    // Each round, every process creates the same new queues at once, as a cluster's processes do at their first start.
    const rounds = 2;
    const names = ["mail", "verify", "prune"];
    const outcomes: PromiseSettledResult<void>[] = [];
    for (let round = 0; round < rounds; round++) {
      const create = (queue: PgBoss) => Promise.all(names.map((name) => ensureQueue(queue, `race-${round}-${name}`)));
      outcomes.push(
        ...(await Promise.allSettled([...queues, ...queues].map(async (queue) => void (await create(queue))))),
      );
    }
    expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    const { rows } = await pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ${QUEUE_SCHEMA}.queue WHERE name LIKE 'race-%'`,
    );
    expect(rows[0]?.count).toBe(rounds * names.length);
  });
});
