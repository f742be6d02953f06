/**
 * Pruning of expired idempotency keys against a real PostgreSQL: what it deletes, in which batches, and that it and
 * the API's idempotent writes never wait for each other beyond one batch. A batch is held open through a seam around
 * the real pool (its DELETE runs on PostgreSQL inside a transaction that the test commits when it chooses).
 */
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../tests/helpers/database.ts";
import { connectionSettings } from "../../db/database.ts";
import { migrate } from "../../db/migrate.ts";
import { startQueue } from "../../jobs/queue.ts";
import { newId } from "../../lib/ids.ts";
import { type IdempotencyContext, idempotentWrite } from "./idempotency.ts";
import { PRUNE_CRON, PRUNE_QUEUE, pruneExpiredKeys, registerIdempotencyPruning } from "./prune.ts";

const logger = pino({ level: "silent" });

describe("pruning of expired idempotency keys", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let workspaceId: string;
  let otherWorkspaceId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    pool.on("error", () => undefined);
    await migrate(pool);
    workspaceId = newId("workspace");
    otherWorkspaceId = newId("workspace");
    await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Prune'), ($2, 'Other')", [
      workspaceId,
      otherWorkspaceId,
    ]);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });
  beforeEach(async () => {
    await pool.query("TRUNCATE idempotency_keys");
  });

  /** `count` keys named `prefix-1…`, expired (oldest first, in name order) or live. */
  const seed = (workspace: string, prefix: string, count: number, state: "expired" | "live") =>
    pool.query(
      `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, response_body, created_at, expires_at)
       SELECT $1, $2 || '-' || g, '\\x00', 201, '{}', now() - interval '25 hours',
              CASE WHEN $4 = 'expired' THEN now() - interval '1 hour' + g * interval '1 ms'
                   ELSE now() + interval '1 hour' + g * interval '1 ms' END
         FROM generate_series(1, $3::int) AS g`,
      [workspace, prefix, count, state],
    );
  const keys = async () =>
    (
      await pool.query<{ key: string; live: boolean }>(
        "SELECT key, expires_at > now() AS live FROM idempotency_keys ORDER BY key",
      )
    ).rows;
  const write = (key: string): Promise<unknown> => {
    const context: IdempotencyContext = {
      workspaceId,
      inFlightWaitMs: 10_000,
      key,
      method: "POST",
      path: "/v1/leads",
      body: { name: key },
    };
    return idempotentWrite(pool, context, async () => ({ status: 201, body: { key } }));
  };

  it("deletes every expired key, of every workspace, in batches of the given size, and keeps the live ones", async () => {
    await seed(workspaceId, "expired", 2_500, "expired");
    await seed(otherWorkspaceId, "expired-other", 100, "expired");
    await seed(workspaceId, "live", 30, "live");
    const batches: number[] = [];
    const result = await pruneExpiredKeys(pool, { batchSize: 1_000, pauseMs: 0, onBatch: (n) => batches.push(n) });
    expect(batches).toEqual([1_000, 1_000, 600]);
    expect(result).toMatchObject({ deleted: 2_600, batches: 3, complete: true });
    const left = await keys();
    expect(left).toHaveLength(30);
    expect(left.every((row) => row.live && row.key.startsWith("live-"))).toBe(true);
  });

  it("stops before its next batch when told to, leaving the rest for the next run", async () => {
    await seed(workspaceId, "expired", 250, "expired");
    const stop = new AbortController();
    const result = await pruneExpiredKeys(pool, {
      batchSize: 100,
      pauseMs: 0,
      signal: stop.signal,
      onBatch: () => stop.abort(),
    });
    expect(result).toMatchObject({ deleted: 100, batches: 1, complete: false });
    expect(await keys()).toHaveLength(150);
    expect(await pruneExpiredKeys(pool, { batchSize: 100, pauseMs: 0 })).toMatchObject({
      deleted: 150,
      complete: true,
    });
  });

  it("lets writes run while a batch holds its rows: another key at once, a key being pruned after that batch", async () => {
    await seed(workspaceId, "expired", 50, "expired");
    let enter: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => {
      enter = resolve;
    });
    let commit: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      commit = resolve;
    });
    // The first batch runs in a transaction that stays open until the test commits it.
    let held = false;
    const holdingFirstBatch = {
      query: async (text: string, values: unknown[]) => {
        if (held) return pool.query(text, values);
        held = true;
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const result = await client.query(text, values);
          enter();
          await gate;
          await client.query("COMMIT");
          return result;
        } finally {
          client.release();
        }
      },
    } as unknown as pg.Pool;
    const pruning = pruneExpiredKeys(holdingFirstBatch, { batchSize: 20, pauseMs: 0 });
    await entered;

    // A write with a new key does not touch the locked rows: it commits while the batch is still open (were it
    // blocked, this await would hang until the test's timeout).
    await write("fresh");
    // A write that reuses a key of the open batch (expired-1, the oldest) waits for that batch's commit only.
    let settled = false;
    const reusing = write("expired-1").finally(() => {
      settled = true;
    });
    let waited = false;
    while (!waited && !settled) {
      // The wait is on the batch's transaction id (a lock with no database), so backends are matched by pid.
      const { rows } = await pool.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_stat_activity a USING (pid)
          WHERE NOT l.granted AND a.datname = current_database()`,
      );
      waited = (rows[0]?.waiting ?? 0) > 0;
      if (!waited) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(waited).toBe(true);
    commit();
    await reusing;

    expect(await pruning).toMatchObject({ deleted: 50, batches: 3, complete: true });
    expect(await keys()).toEqual([
      { key: "expired-1", live: true },
      { key: "fresh", live: true },
    ]);
  });

  it("passes over an expired key that a write holds instead of waiting for it", async () => {
    await seed(workspaceId, "expired", 30, "expired");
    // A write in flight that renews expired-7 (what the upsert in idempotency.ts does to an expired key).
    const writer = await pool.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(
        "UPDATE idempotency_keys SET expires_at = now() + interval '24 hours' WHERE workspace_id = $1 AND key = 'expired-7'",
        [workspaceId],
      );
      expect(await pruneExpiredKeys(pool, { batchSize: 10, pauseMs: 0 })).toMatchObject({
        deleted: 29,
        complete: true,
      });
      await writer.query("COMMIT");
    } finally {
      writer.release();
    }
    expect(await keys()).toEqual([{ key: "expired-7", live: true }]);
  });

  it("is scheduled every minute in worker processes, and not in API-only ones", async () => {
    const settings = connectionSettings(database.url, {
      databaseUrl: database.url,
      dataDir: ".data",
      dbConnectTimeoutMs: 5_000,
      dbStatementTimeoutMs: 5_000,
      dbPoolMax: 4,
    });
    const api = await startQueue(settings, logger, { worker: false, superviseIntervalSeconds: 60 });
    try {
      (await registerIdempotencyPruning(api, { pool, logger }, { work: false })).stop();
      expect(await api.getSchedules()).toEqual([]);
    } finally {
      await api.stop({ graceful: false });
    }
    const worker = await startQueue(settings, logger, { worker: true, superviseIntervalSeconds: 60 });
    try {
      const pruning = await registerIdempotencyPruning(worker, { pool, logger }, { work: true });
      expect(await worker.getSchedules()).toMatchObject([{ name: PRUNE_QUEUE, cron: PRUNE_CRON }]);
      expect(await worker.getQueue(PRUNE_QUEUE)).toMatchObject({ policy: "stately" });
      pruning.stop();
    } finally {
      await worker.stop({ graceful: false });
    }
  });
});
