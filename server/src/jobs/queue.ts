/**
 * The job queue: pg-boss on the same PostgreSQL, so that a job can be enqueued in the transaction of the change
 * that causes it (pg-boss 10 `send(..., { db })`).
 */
import PgBoss from "pg-boss";
import type { Logger } from "pino";

export const QUEUE_SCHEMA = "pgboss";

export async function startQueue(databaseUrl: string, logger: Logger, options: { worker: boolean }): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: QUEUE_SCHEMA,
    max: 5,
    application_name: "service-queue",
    // Maintenance and cron scheduling belong to workers; API-only processes only enqueue.
    supervise: options.worker,
    schedule: options.worker,
    // Expired active jobs (a worker killed mid-job) are found at maintenance: every 15 s, not pg-boss's 2 minutes.
    maintenanceIntervalSeconds: 15,
  });
  boss.on("error", (error) => logger.error({ err: error }, "queue error"));
  await boss.start();
  return boss;
}
