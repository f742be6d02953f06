/**
 * The job queue of the account flows (domain/auth/auth.jobs.ts): pg-boss on the same PostgreSQL, with its own retries.
 * Webhook deliveries do not go through it: their table is their queue, and their schedule the one owner of their
 * retries (domain/webhooks/worker.ts).
 */
import PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { ConnectionSettings } from "../db/database.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";

export const QUEUE_SCHEMA = "pgboss";

/**
 * pg-boss 10 takes the next jobs of a queue with `WHERE name = $1 AND state < 'active' AND start_after < now()
 * ORDER BY priority DESC, created_on, id LIMIT $2 FOR UPDATE SKIP LOCKED`, but its own index (job_i5: name,
 * start_after) cannot give that order, so every fetch reads and sorts every waiting job of the queue: with a backlog
 * of 100,000 deliveries one fetch of 50 took 500 ms (an external sort on disk) and the drain fell to about 100
 * deliveries/s, slower the longer the backlog (bench:scale). In this order a fetch reads its 50 entries and stops
 * (0.1 ms). Made on the partitioned table, it reaches every queue's partition, and those pg-boss attaches later.
 */
export const FETCH_ORDER_INDEX = "job_fetch_order";
const FETCH_ORDER_INDEX_SQL = `CREATE INDEX IF NOT EXISTS ${FETCH_ORDER_INDEX}
  ON ${QUEUE_SCHEMA}.job (name, priority DESC, created_on, id) WHERE state < 'active'`;
/** Serialises processes that start together: one builds the index, the others then find it. */
const FETCH_ORDER_LOCK_ID = 726_354_002;

/**
 * Builds the fetch index once. The build holds a SHARE lock on the job tables, so enqueues wait for it: a second or
 * so on a large backlog, once, at the first start after an upgrade; later starts only look it up.
 */
async function ensureFetchOrderIndex(boss: PgBoss): Promise<void> {
  const db = boss.getDb();
  const { rows } = await db.executeSql(
    `SELECT to_regclass('${QUEUE_SCHEMA}.${FETCH_ORDER_INDEX}') IS NOT NULL AS present`,
    [],
  );
  if (rows[0]?.present) return;
  // One simple-protocol query, so one transaction: the lock is held until the index is committed.
  await db.executeSql(`SELECT pg_advisory_xact_lock(${FETCH_ORDER_LOCK_ID}); ${FETCH_ORDER_INDEX_SQL}`, []);
}

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
  await ensureFetchOrderIndex(boss);
  return boss;
}

/** PostgreSQL's deadlock_detected: it aborted this transaction to let the other go on; trying again is safe. */
const DEADLOCK_DETECTED = "40P01";

/**
 * `createQueue`, tried again when PostgreSQL resolves a deadlock against it. Processes that start together on a new
 * database (a cluster's, or several pods at once) create the same queues at the same time, and pg-boss's queue
 * creation (a row and a partition) can deadlock with itself; PostgreSQL then aborts one of them, and without a retry
 * that process exited at start.
 */
export async function ensureQueue(queue: PgBoss, name: string, options?: PgBoss.Queue): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await queue.createQueue(name, options);
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== DEADLOCK_DETECTED || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80 * attempt));
    }
  }
}
