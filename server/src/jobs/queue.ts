/**
 * The job queue of the account flows (domain/auth/auth.jobs.ts): pg-boss on the same PostgreSQL, with its own retries.
 * Webhook deliveries do not go through it: their table is their queue, and their schedule the one owner of their
 * retries (domain/webhooks/worker.ts).
 */
import PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { ConnectionSettings } from "../db/database.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";

const QUEUE_SCHEMA = "pgboss";

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
