/**
 * The job queue: pg-boss on the same PostgreSQL, so that a job can be enqueued in the transaction of the change
 * that causes it (pg-boss 10 `send(..., { db })`).
 */
import PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { ConnectionSettings } from "../db/database.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";

export const QUEUE_SCHEMA = "pgboss";

export async function startQueue(
  settings: ConnectionSettings,
  logger: Logger,
  options: { worker: boolean },
): Promise<PgBoss> {
  const boss = new PgBoss({
    // The service's connection limits (database.ts): pg-boss hands its options to its own pg.Pool.
    ...settings,
    schema: QUEUE_SCHEMA,
    max: 5,
    application_name: "service-queue",
    // Maintenance and cron scheduling belong to workers; API-only processes only enqueue.
    supervise: options.worker,
    schedule: options.worker,
    // Expired active jobs (a worker killed mid-job) are found at maintenance: every 15 s, not pg-boss's 2 minutes.
    maintenanceIntervalSeconds: 15,
  });
  // pg-boss only queries through pool.query (which handles a lost connection); its maintenance loop reports each
  // failed round here. A database outage is a warning: the loop tries again by itself.
  boss.on("error", (error) =>
    isDatabaseUnavailable(error)
      ? logger.warn({ err: error }, "queue waiting for the database")
      : logger.error({ err: error }, "queue error"),
  );
  await boss.start();
  return boss;
}
