/**
 * Resets of a workspace's test data (`POST /v1/test-data/reset`): the request records a pending reset and enqueues
 * its job in its own transaction; a worker carries it out in two calls of `reset_test_data()` (migration 0018): the
 * bulk of the objects first, while writes go on, then, in one short transaction under the sequencer's lock, what was
 * made meanwhile, the events, and the feed's restart at 1. A follower learns of it from `restarted_at` and 410
 * `EVENTS_RESET` (events.service.ts).
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Queryable } from "../../db/queryable.ts";
import { withTransaction } from "../../db/transaction.ts";
import { defineQueue, onClient } from "../../jobs/queue.ts";
import { newId } from "../../lib/ids.ts";
import * as store from "./test-data.store.ts";

export type TestDataReset = components["schemas"]["TestDataReset"];

const RESET_QUEUE = "test-data-reset";
/** A reset's job ends within this; test-data.store.ts counts one older than that, still unfinished, as failed. */
const RESET_EXPIRY_SECONDS = 15 * 60;

interface ResetJob {
  id: string;
  scope: string;
}

function toReset(row: store.ResetRow): TestDataReset {
  return {
    id: row.id,
    object: "test_data_reset",
    livemode: false,
    status: row.status,
    deleted: row.deleted,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}

/** Asks for a reset of the scope in the caller's transaction: a new one, or the one already pending or running. */
export async function requestReset(boss: PgBoss, db: Queryable, scope: string): Promise<TestDataReset> {
  const { row, created } = await store.insertReset(db, scope, newId("testDataReset"));
  if (created) await boss.send(RESET_QUEUE, { id: row.id, scope } satisfies ResetJob, { db: onClient(db) });
  return toReset(row);
}

export async function getReset(db: Queryable, scope: string, id: string): Promise<TestDataReset> {
  return toReset(await store.findReset(db, scope, id));
}

type Counts = components["schemas"]["TestDataResetCounts"];

function sum(a: Counts, b: Counts): Counts {
  const kinds = Object.keys(a) as (keyof Counts)[];
  return Object.fromEntries(kinds.map((kind) => [kind, a[kind] + b[kind]])) as unknown as Counts;
}

/** Carries out one reset; a failure marks it failed (the feed and its events are as they were) and is logged. */
async function runReset(pool: pg.Pool, logger: Logger, job: ResetJob): Promise<void> {
  try {
    await store.markReset(pool, job.id, "running");
    const bulk = await store.deleteTestData(pool, job.scope, false);
    const rest = await withTransaction(pool, (client) => store.deleteTestData(client, job.scope, true));
    const deleted = sum(bulk, rest);
    await store.markReset(pool, job.id, "succeeded", deleted);
    logger.info({ reset_id: job.id, deleted }, "test data reset");
  } catch (error) {
    logger.error({ err: error, reset_id: job.id }, "test data reset failed");
    await store.markReset(pool, job.id, "failed");
  }
}

/** Defines the reset queue and, for workers, works it. */
export async function registerTestDataResets(
  boss: PgBoss,
  deps: { pool: pg.Pool; logger: Logger },
  options: { work: boolean },
): Promise<void> {
  // No retry of its own: a reset that failed says so, and the caller asks again.
  await defineQueue(boss, RESET_QUEUE, { notify: true, retryLimit: 0, expireInSeconds: RESET_EXPIRY_SECONDS });
  if (!options.work) return;
  await boss.work<ResetJob>(RESET_QUEUE, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const { data } of jobs) await runReset(deps.pool, deps.logger, data);
  });
}
