/**
 * The job queue: pg-boss 12 on the service's PostgreSQL, in a schema of its own. It carries webhook deliveries
 * (domain/webhooks/delivery-jobs.ts), the account e-mails (domain/auth/auth.jobs.ts) and the pruning of idempotency
 * keys and of old events (jobs/pruning.ts), and the ends of snoozes.
 */

import { type Db as JobDb, PgBoss, type Queue } from "pg-boss";
import type { Logger } from "pino";
import { QUEUE_POOL_MAX } from "../db/connection-budget.ts";
import type { ConnectionSettings } from "../db/database.ts";
import type { Queryable } from "../db/queryable.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";

/**
 * pg-boss 12's own schema. pg-boss 10's (`pgboss`) cannot be migrated in place; what it still held is moved into this
 * one once, at the first start after the upgrade (legacy-queue.ts).
 */
export const QUEUE_SCHEMA = "jobs";

/** The options of a queue this service defines, without its name. */
export type QueueDefinition = Omit<Queue, "name">;

export interface QueueOptions {
  /** Workers take jobs, run maintenance (expiry, heartbeats, retention) and the cron schedules. */
  worker: boolean;
  /**
   * How often a worker process runs pg-boss's maintenance. Its expiry and heartbeat checks are what hand the job of a
   * worker that died to another, so this bounds how long a crashed attempt waits to be made again.
   */
  superviseIntervalSeconds: number;
}

export async function startQueue(settings: ConnectionSettings, logger: Logger, options: QueueOptions): Promise<PgBoss> {
  const boss = new PgBoss({
    // The service's connection limits (database.ts): pg-boss hands its options to its own pg.Pool.
    ...settings,
    schema: QUEUE_SCHEMA,
    max: QUEUE_POOL_MAX,
    application_name: options.worker ? "service-queue-worker" : "service-queue",
    instanceName: options.worker ? "worker" : "api",
    // Maintenance and cron scheduling belong to workers; API-only processes only enqueue.
    supervise: options.worker,
    schedule: options.worker,
    superviseIntervalSeconds: options.superviseIntervalSeconds,
    monitorIntervalSeconds: options.superviseIntervalSeconds,
    // A LISTEN connection (which pg-boss rebuilds when it is cut) wakes a worker when a job is made on a `notify`
    // queue, instead of at its next poll. API processes only send the NOTIFY, within their inserts.
    useListenNotify: options.worker,
  });
  // pg-boss reports each failed round of its loops here; they try again by themselves. A database outage is a warning.
  boss.on("error", (error) =>
    isDatabaseUnavailable(error)
      ? logger.warn({ err: error }, "queue waiting for the database")
      : logger.error({ err: error }, "queue error"),
  );
  boss.on("warning", (warning) => logger.warn({ warning }, "queue warning"));
  await boss.start();
  return boss;
}

/**
 * Creates the queue when it does not exist, and sets its options when it does: whoever creates a queue first sets
 * them, so a process of a newer version would otherwise run with the options of the version that came first. (A
 * queue's policy, partitioning and heartbeat are fixed when it is made.)
 */
export async function defineQueue(boss: PgBoss, name: string, definition: QueueDefinition): Promise<void> {
  await boss.createQueue(name, definition);
  const { policy: _policy, partition: _partition, heartbeatSeconds: _heartbeat, ...changeable } = definition;
  if (Object.keys(changeable).length > 0) await boss.updateQueue(name, changeable);
}

/**
 * A pg-boss `db` on the caller's client: a job sent or settled through it is part of the transaction running there,
 * so it commits or rolls back with the change it belongs to.
 *
 * @example
 * await boss.insert(QUEUE, jobs, { db: onClient(client) });
 */
export function onClient(client: Queryable): JobDb {
  return { executeSql: (text, values) => client.query(text, values) };
}
