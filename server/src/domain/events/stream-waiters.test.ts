/**
 * The stream's waiting readers, on a real LISTEN connection: a notification that comes while a reader reads (before it
 * waits) wakes it at once, instead of leaving it asleep until its wait ends or another event comes.
 */
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../tests/helpers/database.ts";
import { connectionSettings } from "../../db/database.ts";
import { STREAM_CHANNEL } from "./sequencer.ts";
import { type StreamWaiters, startStreamWaiters } from "./stream-waiters.ts";

let database: TestDatabase;
let waiters: StreamWaiters;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const settings = connectionSettings(database.url, {
    databaseUrl: database.url,
    dataDir: ".data",
    dbConnectTimeoutMs: 5_000,
    dbStatementTimeoutMs: 10_000,
    dbPoolMax: 1,
  });
  waiters = await startStreamWaiters({ settings, logger: pino({ level: "silent" }) });
});

afterAll(async () => {
  await waiters?.stop();
  await pool?.end();
  await database?.drop();
});

const settle = (ms: number) => new Promise<"slept">((resolve) => setTimeout(() => resolve("slept"), ms));

it("wakes a reader at once for an event numbered between its read and its wait", async () => {
  const since = waiters.mark();
  // The reader's read runs; meanwhile the workspace's event is numbered and its notification arrives.
  await pool.query(`SELECT pg_notify('${STREAM_CHANNEL}', 'ws_race')`);
  await expect.poll(() => waiters.mark()).not.toBe(since);
  // The wait that follows the read must not sleep through it (30 s here, as a reader's `wait` may be).
  const woken = waiters.wait("ws_race", 30_000, undefined, since).then(() => "woken" as const);
  expect(await Promise.race([woken, settle(10_000)])).toBe("woken");
});

it("still waits for the next event when nothing came since its read", async () => {
  const since = waiters.mark();
  const woken = waiters.wait("ws_quiet", 30_000, undefined, since).then(() => "woken" as const);
  expect(await Promise.race([woken, settle(300)])).toBe("slept");
  await pool.query(`SELECT pg_notify('${STREAM_CHANNEL}', 'ws_quiet')`);
  expect(await Promise.race([woken, settle(10_000)])).toBe("woken");
});
