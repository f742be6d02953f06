/**
 * Starts a role's parts in order (database, Redis, queue, limits, keys, sequencer, the HTTP app, jobs, workers, then
 * listening) and stops them in the reverse order. What each part is lives in its own module; this file only puts them
 * in line. `main.ts` calls it; so do the tests, which start the real thing on port 0.
 */

import type { Logger } from "pino";
import { CLUSTER_ROLE_ENV, clusterProcessName } from "./cluster-env.ts";
import type { Config } from "./config.ts";
import { connectRedis } from "./db/connect-redis.ts";
import { checkConnectionBudget, connectionPlan } from "./db/connection-budget.ts";
import { type Database, openDatabase } from "./db/database.ts";
import { startListener } from "./db/listener.ts";
import { migrate } from "./db/migrate.ts";
import { createApiKeyCache } from "./domain/api-keys/key-cache.ts";
import { createLastUsedTracker } from "./domain/api-keys/last-used.ts";
import { keyVerifier } from "./domain/api-keys/verify-key.ts";
import { sessionVerifier } from "./domain/auth/verify-session.ts";
import { startSequencer } from "./domain/events/sequencer.ts";
import { startStreamWaiters } from "./domain/events/stream-waiters.ts";
import { deliveryFanOut } from "./domain/webhooks/fan-out.ts";
import { RETRY_SCHEDULE_SECONDS } from "./domain/webhooks/schedule.ts";
import { startDeliveryWorker } from "./domain/webhooks/worker.ts";
import { createApp } from "./http/app.ts";
import { createAuthenticators } from "./http/authenticate.ts";
import { requestBudget } from "./http/budget.ts";
import { composeHandlers } from "./http/handlers.ts";
import { listen } from "./http/listen.ts";
import { loadOpenApiDocument } from "./http/openapi-document.ts";
import { registerBackgroundJobs } from "./jobs/background-jobs.ts";
import { startQueue } from "./jobs/queue.ts";
import { withDeadline } from "./lib/deadline.ts";
import { findConsoleBuild } from "./ops/console.ts";
import { createMetrics, joinClusterMetrics, startMetricsServer } from "./ops/metrics.ts";
import type { ReadinessCheck } from "./ops/ops.routes.ts";
import { createLimiters, type Limiters, RATE_LIMIT_CLEARED_CHANNEL } from "./rate-limit/limiters.ts";

export type Role = "start" | "api" | "worker" | "migrate";

export interface RunningService {
  /** `http://host:port` of the API, when this role serves it. */
  readonly url: string | undefined;
  /** The Prometheus endpoint, when METRICS_PORT is set. */
  readonly metricsUrl: string | undefined;
  readonly db: Database;
  readonly limiters: Limiters | undefined;
  /** Writes pending API-key last-used times now (they are otherwise batched every 15 s). */
  flushLastUsed(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How often a worker process runs pg-boss's maintenance, whose expiry and heartbeat checks hand the job of a worker
 * that died to another: with the delivery queue's 10 s heartbeat, a crashed attempt is made again within about 20 s.
 */
const QUEUE_SUPERVISE_INTERVAL_SECONDS = 10;

/** The parts started so far, each with its stop: stopped last to first. */
class StartedParts {
  readonly #stops: (() => Promise<void> | void)[] = [];

  add<T>(part: T, stop: (part: T) => Promise<void> | void): T {
    this.#stops.push(() => stop(part));
    return part;
  }

  async stopAll(): Promise<void> {
    for (const stop of this.#stops.splice(0).reverse()) await stop();
  }
}

export async function startService(config: Config, logger: Logger, role: Role): Promise<RunningService> {
  const parts = new StartedParts();
  try {
    return await startParts(config, logger, role, parts);
  } catch (error) {
    // A start that fails halfway closes what it opened (its pools, listeners and timers) before it reports.
    await parts.stopAll().catch((failure: unknown) => logger.debug({ err: failure }, "stopping a failed start"));
    throw error;
  }
}

async function startParts(config: Config, logger: Logger, role: Role, parts: StartedParts): Promise<RunningService> {
  const db = parts.add(await openDatabase(config, logger), (database) => database.close());
  const applied = await migrate(db.pool);
  if (applied.length > 0) logger.info({ applied }, "migrations applied");
  const serveApi = role === "start" || role === "api";
  const runWorker = role === "start" || role === "worker";
  // A process of a cluster is in its primary's plan (cluster.ts); a process alone checks its own.
  if (role !== "migrate" && process.env[CLUSTER_ROLE_ENV] === undefined) {
    const plan = connectionPlan([{ role: serveApi && runWorker ? "both" : role, pool: config.dbPoolMax }]);
    await checkConnectionBudget(db.pool, plan, logger);
  }
  if (role === "migrate") {
    return {
      url: undefined,
      metricsUrl: undefined,
      db,
      limiters: undefined,
      flushLastUsed: async () => undefined,
      stop: () => parts.stopAll(),
    };
  }

  const redis = parts.add(await connectRedis(config, logger), (connection) => connection?.stop());
  const queue = parts.add(
    await startQueue(db.settings, logger, {
      worker: runWorker,
      superviseIntervalSeconds: QUEUE_SUPERVISE_INTERVAL_SECONDS,
    }),
    async (boss) => {
      await boss.stop({ graceful: true, timeout: config.shutdownTimeoutMs });
      // pg-boss may still hold a connection or a timer after stop(): when the database goes down next, the errors it
      // reports are the expected end of those, not an outage worth a warning.
      boss.removeAllListeners("error");
      boss.on("error", (error) => logger.debug({ err: error }, "queue connection closed while stopping"));
    },
  );
  const limiters = createLimiters({ redis: redis?.client, pool: db.pool, config, logger });
  // A key cleared by another process (the admin CLI's limits:clear) is unblocked here too: one LISTEN connection per
  // API process. A clear missed while it reconnects leaves the key blocked until its window ends, as it was.
  if (serveApi) {
    const listener = await startListener({
      settings: db.settings,
      channel: RATE_LIMIT_CLEARED_CHANNEL,
      name: "service-cleared-limits",
      logger,
      onNotification: (payload) => payload && limiters.forget(payload),
    });
    parts.add(listener, (cleared) => cleared.stop());
  }
  const lastUsed = parts.add(createLastUsedTracker(db.pool, logger), (tracker) => tracker.stop());
  const keys = parts.add(await createApiKeyCache({ pool: db.pool, settings: db.settings, logger }), (cache) =>
    cache.stop(),
  );
  const sequencer = parts.add(startSequencer({ pool: db.passPool, logger, onSequenced: deliveryFanOut(queue) }), (s) =>
    s.stop(),
  );
  const urls = {
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    // Outside production the refusal of a private address names the setting that allows it.
    nameSettingInRefusal: config.nodeEnv !== "production",
  };
  const metrics = createMetrics();
  // A process of a cluster hands its metrics to the primary, which serves them all (ops/metrics.ts).
  const clusterProcess = clusterProcessName();
  if (clusterProcess !== undefined) joinClusterMetrics(metrics, clusterProcess);
  const metricsServer =
    config.metricsPort === undefined || clusterProcess !== undefined
      ? undefined
      : parts.add(await startMetricsServer(metrics, { port: config.metricsPort, host: config.metricsHost }), (server) =>
          server.close(),
        );
  // The app is built before the workers start: building it holds the event loop for seconds (the contract's document,
  // its validators), and a delivery worker's fetch holding its queue's lock across that wait is ended by the server
  // (the lock's idle-in-transaction timeout, patches/README.md), which pg-boss reports as a queue error.
  let app: ReturnType<typeof createApp> | undefined;
  let isDraining = () => false;
  if (serveApi) {
    // The readers of the change stream that wait for its next event: one LISTEN connection per API process.
    const waiters = parts.add(await startStreamWaiters({ settings: db.settings, logger }), (started) => started.stop());
    const readiness: ReadinessCheck[] = [
      { name: "postgres", check: async () => void (await db.pool.query("SELECT 1")) },
      { name: "queue", check: async () => void (await queue.getQueues()) },
    ];
    if (redis) {
      const client = redis.client;
      readiness.push({
        name: "redis",
        essential: false,
        check: async () => void (await withDeadline(client.ping(), config.redisCommandTimeoutMs)),
      });
    }
    const openapi = loadOpenApiDocument();
    const consoleBuild = findConsoleBuild();
    if (!consoleBuild) logger.warn("the console is not built (npm run build): / answers 404");
    const handlers = composeHandlers({
      config,
      pool: db.pool,
      queue,
      limiters,
      keys,
      settle: sequencer.settle,
      waiters,
      openapi,
      urls,
    });
    const authenticators = createAuthenticators({
      verifyKey: keyVerifier({ keys, lastUsed }),
      verifySession: sessionVerifier(db.pool),
    });
    app = createApp({
      console: consoleBuild,
      config,
      logger,
      metrics,
      openapi,
      readiness,
      isShuttingDown: () => isDraining(),
      authenticators,
      budget: requestBudget(limiters),
      handlers,
    });
  }
  parts.add(
    await registerBackgroundJobs(
      queue,
      { pool: db.pool, logger, config, settle: sequencer.settle },
      { work: runWorker },
    ),
    (jobs) => jobs.stop(),
  );
  if (runWorker) {
    const worker = await startDeliveryWorker({
      queue,
      pool: db.pool,
      logger,
      urls,
      schedule: config.webhookRetrySchedule ?? RETRY_SCHEDULE_SECONDS,
      timeoutMs: config.webhookTimeoutMs,
      pollIntervalMs: config.webhookPollIntervalMs,
      maxPerSecond: config.webhookMaxDeliveriesPerSecond,
    });
    parts.add(worker, (started) => started.stop());
  }

  let url: string | undefined;
  if (app) {
    const prepared = app;
    const http = await listen(
      (draining) => {
        isDraining = draining;
        return prepared;
      },
      config,
      logger,
    );
    parts.add(http, (listener) => listener.stop());
    url = http.url;
    logger.info(
      { url, role, pid: process.pid, embedded_postgres: db.embedded, redis: redis !== undefined },
      "API listening",
    );
  }

  return {
    url,
    metricsUrl: metricsServer?.url,
    db,
    limiters,
    flushLastUsed: () => lastUsed.flush(),
    stop: () => parts.stopAll(),
  };
}
