/**
 * The PostgreSQL connections a host of the service opens at most, said at start, and a start refused when they cannot
 * fit beside what the server already serves. Per process: its share of `DB_POOL_MAX` (cluster.ts) and its sequencer's
 * connection (PASS_POOL_MAX, database.ts), pg-boss's own pool
 * (QUEUE_POOL_MAX, queue.ts) and its LISTEN connections: the API key cache's in every process; an API process's
 * change-stream waiters and cleared limits; a worker's pg-boss wake-ups.
 *
 * A host whose most could never fit (more than `max_connections` less the superusers' reserve) is refused at start.
 * One that does not fit in what is free now is told, with the figures, but starts: pools open connections as they
 * need them, and during a rolling restart the process being replaced still holds its own. Each host checks at its own
 * start; the guide (docs/deployment.md) adds them up for a fleet.
 */
import type pg from "pg";
import type { Logger } from "pino";

/** pg-boss's pool in each process (queue.ts passes it as `max`). */
export const QUEUE_POOL_MAX = 5;
/** The sequencer's pool in each process (database.ts). */
export const PASS_POOL_MAX = 1;
const LISTENERS = { api: 3, worker: 2, both: 4 } as const;

export interface ConnectionPlan {
  /** The service pools' connections (their `max`, and each process's sequencer's, summed). */
  pools: number;
  /** pg-boss's pools. */
  queues: number;
  /** LISTEN connections. */
  listeners: number;
  total: number;
}

/**
 * The most connections of a host: `pools` is each process's pool `max` with its role, `extra` connections held beside
 * them (a cluster's primary keeps the one it migrated with).
 */
export function connectionPlan(processes: readonly { role: keyof typeof LISTENERS; pool: number }[], extra = 0) {
  const pools = processes.reduce((sum, process) => sum + process.pool + PASS_POOL_MAX, 0) + extra;
  const queues = processes.length * QUEUE_POOL_MAX;
  const listeners = processes.reduce((sum, process) => sum + LISTENERS[process.role], 0);
  return { pools, queues, listeners, total: pools + queues + listeners } satisfies ConnectionPlan;
}

export class ConnectionBudgetError extends Error {}

/** Logs the plan beside the server's limit; throws ConnectionBudgetError when it could never fit. */
export async function checkConnectionBudget(pool: pg.Pool, plan: ConnectionPlan, logger: Logger): Promise<void> {
  const { rows } = await pool.query<{ max: number; reserved: number; used: number }>(
    `SELECT current_setting('max_connections')::int AS max,
            current_setting('superuser_reserved_connections')::int AS reserved,
            (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS used`,
  );
  const { max, reserved, used } = rows[0] as { max: number; reserved: number; used: number };
  // The connection this check runs on is ours, and counted in the plan.
  const free = max - reserved - (used - 1);
  const figures = { ...plan, max_connections: max, reserved, in_use_by_others: used - 1, free };
  const what = `up to ${plan.total} PostgreSQL connections (pools ${plan.pools}, pg-boss ${plan.queues}, LISTEN ${plan.listeners})`;
  if (plan.total > max - reserved) {
    throw new ConnectionBudgetError(
      `this host would open ${what}, more than the server ever allows (max_connections ${max}, ${reserved} reserved ` +
        "for superusers): lower DB_POOL_MAX or WEB_CONCURRENCY, or raise max_connections",
    );
  }
  if (plan.total > free) {
    logger.warn(figures, `this host may open ${what}, more than the ${free} free now: other clients may be refused`);
  } else {
    logger.info(figures, `PostgreSQL connections: this host opens ${what}`);
  }
}
