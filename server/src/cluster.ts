/**
 * API processes (`WEB_CONCURRENCY`, else `apiProcesses`), all on one port through node:cluster: the primary process
 * opens the database once (migrations run once; an embedded PostgreSQL is started by it and stopped by it last), then
 * forks the processes that serve. With the `start` role, one more process runs the background jobs (the `worker`
 * role: deliveries, pruning, e-mail) at a lower CPU priority (WORKER_NICE, priority.ts), so that background jobs do
 * not multiply with the cores and no API process shares its event loop with a drain of deliveries. `DB_POOL_MAX` is
 * the budget of the whole service: each process gets its share (the worker a few, the API processes the rest), so that
 * more processes never mean more connections than PostgreSQL allows. A process that dies is replaced (after a
 * second, so that a process failing at start cannot spin).
 */
import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import type { Logger } from "pino";
import { CLUSTER_INDEX_ENV, CLUSTER_ROLE_ENV } from "./cluster-env.ts";
import type { Config } from "./config.ts";
import { checkConnectionBudget, connectionPlan } from "./db/connection-budget.ts";
import { openDatabase } from "./db/database.ts";
import { migrate } from "./db/migrate.ts";
import { withGcFlags } from "./gc-flags.ts";
import { clusterMetrics, startMetricsServer } from "./ops/metrics.ts";

const RESTART_DELAY_MS = 1_000;

/**
 * The worker's pool: the delivery batches' reads, their group commit of outcomes, the pruner and the e-mail jobs each
 * hold at most one connection at a time (pg-boss's fetches run on its own pool). The rest of the budget goes to the
 * API processes, whose requests wait for connections.
 */
const WORKER_POOL_MAX = 4;

/** Each process's share of the connection budget: at least 2 (a transaction and a query beside it). */
export function poolShares(total: number, apiProcesses: number, worker: boolean): { api: number; worker: number } {
  const equal = Math.floor(total / (apiProcesses + (worker ? 1 : 0)));
  const workerShare = worker ? Math.max(2, Math.min(WORKER_POOL_MAX, equal)) : 0;
  return { api: Math.max(2, Math.floor((total - workerShare) / apiProcesses)), worker: workerShare };
}

/**
 * How many API processes this host runs: WEB_CONCURRENCY when set; otherwise, in production, one per core on a host
 * that only serves the API (`api`), and one per core but one, at least one, on a host that also runs the worker
 * (`start`), where the worker and the API processes share the cores (`npm run bench:processes`: on 2 cores beside the
 * worker, one API process had the lower p99 for GET and POST alike, docs/deployment.md); outside production, one.
 */
export function apiProcesses(
  config: Pick<Config, "webConcurrency" | "nodeEnv">,
  role: "start" | "api",
  cores = availableParallelism(),
): number {
  if (config.webConcurrency !== undefined) return config.webConcurrency;
  if (config.nodeEnv !== "production") return 1;
  return role === "api" ? cores : Math.max(1, cores - 1);
}

/**
 * Whether the role runs as a cluster: several API processes, or (in production) the worker beside them in a process
 * of its own, so that no API process shares its event loop with a drain of deliveries.
 */
export function runsAsCluster(
  config: Pick<Config, "webConcurrency" | "nodeEnv">,
  role: string,
): role is "start" | "api" {
  if (role !== "start" && role !== "api") return false;
  return apiProcesses(config, role) > 1 || (role === "start" && config.nodeEnv === "production");
}

export async function runPrimary(config: Config, logger: Logger, role: "start" | "api"): Promise<void> {
  const db = await openDatabase(config, logger);
  const applied = await migrate(db.pool);
  if (applied.length > 0) logger.info({ applied }, "migrations applied");
  const processes = apiProcesses(config, role);
  const roles: ("api" | "worker")[] = Array.from({ length: processes }, () => "api" as const);
  if (role === "start") roles.push("worker");
  const shares = poolShares(config.dbPoolMax, processes, role === "start");
  // The primary keeps the connection it migrated with.
  const plan = connectionPlan(
    roles.map((each) => ({ role: each, pool: shares[each] })),
    1,
  );
  await checkConnectionBudget(db.pool, plan, logger);
  let stopping = false;
  const workers = new Map<number, Worker>();
  cluster.setupPrimary({ execArgv: withGcFlags(process.execArgv) });

  const fork = (index: number) => {
    const worker = cluster.fork({
      [CLUSTER_ROLE_ENV]: roles[index],
      [CLUSTER_INDEX_ENV]: String(index),
      DB_POOL_MAX: String(shares[roles[index] ?? "api"]),
    });
    workers.set(index, worker);
    worker.on("exit", (code, signal) => {
      workers.delete(index);
      if (stopping) return;
      logger.warn({ index, role: roles[index], code, signal }, "process exited; starting another");
      setTimeout(() => fork(index), RESTART_DELAY_MS).unref();
    });
  };
  for (let index = 0; index < roles.length; index++) fork(index);
  // The processes' metrics, each labelled with its process, from one scrape of the primary (ops/metrics.ts).
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(clusterMetrics(), { port: config.metricsPort, host: config.metricsHost });
  logger.info(
    {
      processes,
      worker_process: role === "start",
      pool_per_process: shares.api,
      worker_pool: shares.worker,
      ...(metricsServer && { metrics: metricsServer.url }),
    },
    "cluster started",
  );

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const exits = [...workers.values()].map((worker) => {
      const exited = once(worker, "exit");
      worker.process.kill("SIGTERM");
      return exited;
    });
    const timer = setTimeout(
      () => {
        for (const worker of workers.values()) worker.process.kill("SIGKILL");
      },
      config.shutdownDrainMs + config.shutdownTimeoutMs + 5_000,
    );
    await Promise.all(exits);
    clearTimeout(timer);
    await metricsServer?.close();
    await db.close();
    logger.info("stopped");
    logger.flush();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}
