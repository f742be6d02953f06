/**
 * Wires the parts together for a role: PostgreSQL (migrated), Redis when configured, the pg-boss queue, and the
 * HTTP API. `main.ts` calls it; so do the tests, which start the real thing on port 0.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./db/database.ts";
import { migrate } from "./db/migrate.ts";
import { createApiKeyService } from "./domain/api-keys/api-keys.service.ts";
import { createApiKeyCache } from "./domain/api-keys/key-cache.ts";
import { createLastUsedTracker } from "./domain/api-keys/last-used.ts";
import { registerAuthJobs } from "./domain/auth/auth.jobs.ts";
import { authHandlers } from "./domain/auth/auth.routes.ts";
import { createAuthService } from "./domain/auth/auth.service.ts";
import { createDisposableCheck } from "./domain/auth/disposable.ts";
import { eventRecorder } from "./domain/events/events.ts";
import { registerIdempotencyPruning } from "./domain/idempotency/prune.ts";
import { v1Handlers } from "./domain/v1.routes.ts";
import { createEnqueue, DELIVERY_QUEUE } from "./domain/webhooks/deliveries.ts";
import { RETRY_SCHEDULE_SECONDS } from "./domain/webhooks/schedule.ts";
import { webhookHandlers } from "./domain/webhooks/webhooks.routes.ts";
import { startDeliveryWorker } from "./domain/webhooks/worker.ts";
import { workspaceHandlers } from "./domain/workspaces/workspace.routes.ts";
import { createApp } from "./http/app.ts";
import { createAuthenticators } from "./http/authenticate.ts";
import { loadOpenApiDocument } from "./http/openapi-document.ts";
import { startQueue } from "./jobs/queue.ts";
import { createMailer } from "./mail/mailer.ts";
import { findConsoleBuild } from "./ops/console.ts";
import { createMetrics, startMetricsServer } from "./ops/metrics.ts";
import type { ReadinessCheck } from "./ops/ops.routes.ts";
import { createLimiters, type Limiters } from "./rate-limit/limiters.ts";

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

export async function startService(config: Config, logger: Logger, role: Role): Promise<RunningService> {
  const db = await openDatabase(config, logger);
  const applied = await migrate(db.pool);
  if (applied.length > 0) logger.info({ applied }, "migrations applied");
  if (role === "migrate") {
    return {
      url: undefined,
      metricsUrl: undefined,
      db,
      limiters: undefined,
      flushLastUsed: async () => undefined,
      stop: () => db.close(),
    };
  }

  const redis =
    config.redisUrl === undefined
      ? undefined
      : new Redis(config.redisUrl, {
          // Fail fast instead of queueing commands while Redis is down (rate-limiter-flexible's advice), and give
          // up on a command that a hung Redis does not answer: the limiters then count in PostgreSQL.
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          commandTimeout: config.redisCommandTimeoutMs,
          connectTimeout: Math.max(1_000, config.redisCommandTimeoutMs),
          lazyConnect: false,
        });
  let redisDown = false;
  redis?.on("error", (error) => {
    if (!redisDown) logger.warn({ err: error.message }, "redis error");
    redisDown = true;
  });
  redis?.on("ready", () => {
    if (redisDown) logger.info("redis connection restored");
    redisDown = false;
  });

  const serveApi = role === "start" || role === "api";
  const runWorker = role === "start" || role === "worker";
  const queue: PgBoss = await startQueue(db.settings, logger, { worker: runWorker });
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    pool: db.pool,
    logger,
    logLinks: config.nodeEnv !== "production",
  });
  await registerAuthJobs(
    queue,
    { pool: db.pool, mailer, publicBaseUrl: config.publicBaseUrl, logger },
    { work: runWorker },
  );

  const pruning = await registerIdempotencyPruning(queue, { pool: db.pool, logger }, { work: runWorker });
  const limiters = createLimiters({ redis, pool: db.pool, config, logger });
  const lastUsed = createLastUsedTracker(db.pool, logger);
  await queue.createQueue(DELIVERY_QUEUE);
  const enqueue = createEnqueue(queue, { timeoutMs: config.webhookTimeoutMs });
  const urls = { allowPrivateNetworks: config.webhookAllowPrivateNetworks };
  const worker = runWorker
    ? await startDeliveryWorker({
        pool: db.pool,
        queue,
        settings: db.settings,
        enqueue,
        logger,
        urls,
        schedule: config.webhookRetrySchedule ?? RETRY_SCHEDULE_SECONDS,
        timeoutMs: config.webhookTimeoutMs,
      })
    : undefined;
  const keys = await createApiKeyCache({ pool: db.pool, settings: db.settings, logger });

  const readiness: ReadinessCheck[] = [
    { name: "postgres", check: async () => void (await db.pool.query("SELECT 1")) },
    { name: "queue", check: async () => void (await queue.getQueues()) },
  ];
  if (redis) readiness.push({ name: "redis", check: async () => void (await redis.ping()) });

  const metrics = createMetrics();
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics, { port: config.metricsPort, host: config.metricsHost });
  let shuttingDown = false;
  let server: Server | undefined;
  let url: string | undefined;
  if (serveApi) {
    const auth = createAuthService({
      pool: db.pool,
      queue,
      limiters,
      isDisposable: createDisposableCheck({ allow: config.disposableEmailAllow, deny: config.disposableEmailDeny }),
      registrationMode: config.registrationMode,
      scrypt: { N: 2 ** config.passwordHashCost, r: 8, p: 1 },
    });
    const writes = { pool: db.pool, inFlightWaitMs: config.idempotencyWaitMs, record: eventRecorder(enqueue) };
    const consoleBuild = findConsoleBuild();
    if (!consoleBuild) logger.warn("the console is not built (npm run build): / answers 404");
    const app = createApp({
      console: consoleBuild,
      config,
      logger,
      metrics,
      openapi: loadOpenApiDocument(),
      readiness,
      isShuttingDown: () => shuttingDown,
      authenticators: createAuthenticators({ pool: db.pool, keys, limiters, lastUsed }),
      handlers: {
        ...authHandlers({
          service: auth,
          pool: db.pool,
          secureCookies: config.publicBaseUrl.startsWith("https:"),
          registrationMode: config.registrationMode,
        }),
        ...workspaceHandlers({ apiKeys: createApiKeyService(db.pool, { onKeyChanged: keys.forget }) }),
        ...v1Handlers(writes),
        ...webhookHandlers("Webhooks", { ...writes, urls, enqueue }),
        ...webhookHandlers("WorkspaceWebhooks", { ...writes, urls, enqueue }),
      },
    });
    server = await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(config.port, config.host, (error?: Error) =>
        error ? reject(error) : resolve(listening),
      );
    });
    const address = server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    url = `http://${host}:${address.port}`;
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
    async stop() {
      shuttingDown = true;
      if (server) {
        const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server?.closeAllConnections(), config.shutdownTimeoutMs);
        await closing;
        clearTimeout(timer);
      }
      await metricsServer?.close();
      await worker?.stop();
      pruning.stop();
      await lastUsed.stop();
      await keys.stop();
      await queue.stop({ graceful: true, wait: true, timeout: config.shutdownTimeoutMs });
      // pg-boss may still hold a connection or a timer after stop(): when the database goes down next, the errors it
      // reports are the expected end of those, not an outage worth a warning.
      queue.removeAllListeners("error");
      queue.on("error", (error) => logger.debug({ err: error }, "queue connection closed while stopping"));
      redis?.disconnect();
      await db.close();
    },
  };
}
