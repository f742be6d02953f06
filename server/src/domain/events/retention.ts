/**
 * Events are kept 30 days (the `/v1/events` reference says so). A pg-boss job deletes older ones every 10 minutes in
 * batches of 1,000 (each its own short statement, by the primary key: event ids begin with their time), records per
 * workspace the last sequence it deleted, so that a position before it is a 410, never a silently partial answer.
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { type PruneOptions, pruneInBatches, registerPruningJob } from "../../jobs/pruning.ts";
import { firstIdAt } from "../../lib/ids.ts";
import { deleteEventsBefore } from "./events.store.ts";

const EVENT_RETENTION_QUEUE = "events-retention";
const EVENT_RETENTION_DAYS = 30;
const RETENTION_CRON = "*/10 * * * *";
const DAY_MS = 86_400_000;

/** Deletes the events older than the retention window; returns how many. */
export function pruneOldEvents(pool: pg.Pool, options: PruneOptions & { now?: number } = {}) {
  const before = firstIdAt("event", (options.now ?? Date.now()) - EVENT_RETENTION_DAYS * DAY_MS);
  return pruneInBatches((limit) => deleteEventsBefore(pool, before, limit), options);
}

export function registerEventRetention(
  queue: PgBoss,
  deps: { pool: pg.Pool; logger: Logger },
  options: { work: boolean },
): Promise<{ stop(): void }> {
  return registerPruningJob(queue, deps.logger, {
    work: options.work,
    name: EVENT_RETENTION_QUEUE,
    cron: RETENTION_CRON,
    expireInSeconds: 600,
    what: "events past 30 days",
    run: (signal) => pruneOldEvents(deps.pool, { signal }),
  });
}
