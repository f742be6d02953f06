/**
 * Wires the parts together for a role: PostgreSQL (migrated), Redis when configured, the pg-boss queue, and the
 * HTTP API. `main.ts` calls it; so do the tests, which start the real thing on port 0.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Redis } from "ioredis";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { CLUSTER_ROLE_ENV } from "./cluster-env.ts";
import type { Config } from "./config.ts";
import { checkConnectionBudget, connectionPlan } from "./db/connection-budget.ts";
import { type Database, openDatabase } from "./db/database.ts";
import { startListener } from "./db/listener.ts";
import { migrate } from "./db/migrate.ts";
import { redisClient } from "./db/redis-client.ts";
import { apiKeyHandlers } from "./domain/api-keys/api-keys.routes.ts";
import { createApiKeyService } from "./domain/api-keys/api-keys.service.ts";
import { createApiKeyCache } from "./domain/api-keys/key-cache.ts";
import { createLastUsedTracker } from "./domain/api-keys/last-used.ts";
import { keyVerifier } from "./domain/api-keys/verify-key.ts";
import { registerAuthJobs } from "./domain/auth/auth.jobs.ts";
import { authHandlers } from "./domain/auth/auth.routes.ts";
import { AUTH_QUEUES, createAuthService } from "./domain/auth/auth.service.ts";
import { createDisposableCheck } from "./domain/auth/disposable.ts";
import { sessionVerifier } from "./domain/auth/verify-session.ts";
import { conversationHandlers } from "./domain/conversations/conversations.routes.ts";
import { registerSnoozeEnds, snoozeEndScheduler } from "./domain/conversations/snooze-end.ts";
import { eventHandlers } from "./domain/events/events.routes.ts";
import { recordEvent } from "./domain/events/events.service.ts";
import { registerEventRetention } from "./domain/events/retention.ts";
import { startSequencer } from "./domain/events/sequencer.ts";
import { type StreamWaiters, startStreamWaiters } from "./domain/events/stream-waiters.ts";
import { registerIdempotencyPruning } from "./domain/idempotency/prune.ts";
import { leadHandlers } from "./domain/leads/leads.routes.ts";
import { ticketHandlers } from "./domain/tickets/tickets.routes.ts";
import { defineDeliveryQueue, enqueuePendingDeliveries } from "./domain/webhooks/delivery-jobs.ts";
import { deliveryFanOut } from "./domain/webhooks/fan-out.ts";
import { registerWebhookAlerts } from "./domain/webhooks/incidents.ts";
import { registerRecoveries } from "./domain/webhooks/recover.ts";
import { RETRY_SCHEDULE_SECONDS } from "./domain/webhooks/schedule.ts";
import { webhookHandlers } from "./domain/webhooks/webhooks.routes.ts";
import { startDeliveryWorker } from "./domain/webhooks/worker.ts";
import { workspaceHandlers } from "./domain/workspaces/workspaces.routes.ts";
import { createApp } from "./http/app.ts";
import { createAuthenticators } from "./http/authenticate.ts";
import { requestBudget } from "./http/budget.ts";
import { loadOpenApiDocument } from "./http/openapi-document.ts";
import { schemaCheck } from "./http/schema-check.ts";
import { moveLegacyQueue } from "./jobs/legacy-queue.ts";
import { startQueue } from "./jobs/queue.ts";
import { withDeadline } from "./lib/deadline.ts";
import { createMailer } from "./mail/mailer.ts";
import { findConsoleBuild } from "./ops/console.ts";
import { createMetrics, startMetricsServer } from "./ops/metrics.ts";
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

const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * How often a worker process runs pg-boss's maintenance, whose expiry and heartbeat checks hand the job of a worker
 * that died to another: with the delivery queue's 10 s heartbeat, a crashed attempt is made again within about 20 s.
 */
const QUEUE_SUPERVISE_INTERVAL_SECONDS = 10;

async function redisReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === "ready") return true;
  let timer: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    // Not events.once: it would give up at the first connection error, and ioredis keeps retrying.
    new Promise<boolean>((resolve) => redis.once("ready", () => resolve(true))),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return ready;
}

export async function startService(config: Config, logger: Logger, role: Role): Promise<RunningService> {
  const db = await openDatabase(config, logger);
  const applied = await migrate(db.pool);
  if (applied.length > 0) logger.info({ applied }, "migrations applied");
  // A process of a cluster is in its primary's plan (cluster.ts); a process alone checks its own.
  if (role !== "migrate" && process.env[CLUSTER_ROLE_ENV] === undefined) {
    const plan = connectionPlan([{ role: role === "start" ? "both" : role, pool: config.dbPoolMax }]);
    await checkConnectionBudget(db.pool, plan, logger);
  }
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

  const redis = redisClient(config, {
    // Fail fast instead of queueing commands while Redis is down (rate-limiter-flexible's advice), and give
    // up on a command that a hung Redis does not answer: the limiters then count in PostgreSQL.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A backstop only: the limiters and the readiness check apply REDIS_COMMAND_TIMEOUT_MS themselves, with a
    // deadline that a busy event loop cannot trip (lib/deadline.ts); this one would fire first under load.
    commandTimeout: 10 * config.redisCommandTimeoutMs,
    connectTimeout: Math.max(1_000, config.redisCommandTimeoutMs),
    lazyConnect: false,
    // Commands issued in the same tick go out in one write and their replies come back in one read: under
    // load, the budget checks of concurrent requests share a round trip instead of a syscall each.
    enableAutoPipelining: true,
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

  // Until its Redis connection is ready, a process counts request budgets in PostgreSQL while the others count in
  // Redis, and a budget would be split between two stores: the process waits for it (bounded; a Redis that is down
  // stays the insurance's case).
  if (redis && !(await redisReady(redis, Math.max(1_000, config.redisCommandTimeoutMs) * 2))) {
    logger.warn("redis is not ready: counting in PostgreSQL until it is");
  }

  const serveApi = role === "start" || role === "api";
  const runWorker = role === "start" || role === "worker";
  const queue: PgBoss = await startQueue(db.settings, logger, {
    worker: runWorker,
    superviseIntervalSeconds: QUEUE_SUPERVISE_INTERVAL_SECONDS,
  });
  await defineDeliveryQueue(queue, config.webhookTimeoutMs);
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

  await registerWebhookAlerts(
    queue,
    { pool: db.pool, mailer, publicBaseUrl: config.publicBaseUrl, logger },
    { work: runWorker },
  );
  await registerRecoveries(queue, { pool: db.pool, logger }, { work: runWorker });
  const pruning = await registerIdempotencyPruning(queue, { pool: db.pool, logger }, { work: runWorker });
  const retention = await registerEventRetention(queue, { pool: db.pool, logger }, { work: runWorker });
  const moved = await moveLegacyQueue(queue, db.pool, {
    queues: Object.values(AUTH_QUEUES),
    alsoMove: (client) => enqueuePendingDeliveries(queue, client),
  });
  if (moved) logger.info({ jobs: moved.jobs, deliveries: moved.more }, "moved the pg-boss 10 queue to pg-boss 12");
  const limiters = createLimiters({ redis, pool: db.pool, config, logger });
  // A key cleared by another process (the admin CLI's limits:clear) is unblocked here too: one LISTEN connection per
  // API process. A clear missed while it reconnects leaves the key blocked until its window ends, as it was.
  const clearedLimits = serveApi
    ? await startListener({
        settings: db.settings,
        channel: RATE_LIMIT_CLEARED_CHANNEL,
        name: "service-cleared-limits",
        logger,
        onNotification: (payload) => payload && limiters.forget(payload),
      })
    : undefined;
  const lastUsed = createLastUsedTracker(db.pool, logger);
  const urls = {
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    // Outside production the refusal of a private address names the setting that allows it.
    nameSettingInRefusal: config.nodeEnv !== "production",
  };
  const worker = runWorker
    ? await startDeliveryWorker({
        queue,
        pool: db.pool,
        logger,
        urls,
        schedule: config.webhookRetrySchedule ?? RETRY_SCHEDULE_SECONDS,
        timeoutMs: config.webhookTimeoutMs,
        pollIntervalMs: config.webhookPollIntervalMs,
        maxPerSecond: config.webhookMaxDeliveriesPerSecond,
      })
    : undefined;
  const keys = await createApiKeyCache({ pool: db.pool, settings: db.settings, logger });
  const sequencer = startSequencer({ pool: db.pool, logger, onSequenced: deliveryFanOut(queue) });
  await registerSnoozeEnds(
    queue,
    { pool: db.pool, logger, record: recordEvent, settle: sequencer.settle },
    { work: runWorker },
  );
  // The readers of the change stream that wait for its next event: one LISTEN connection per API process.
  let streamWaiters: StreamWaiters | undefined;

  const readiness: ReadinessCheck[] = [
    { name: "postgres", check: async () => void (await db.pool.query("SELECT 1")) },
    { name: "queue", check: async () => void (await queue.getQueues()) },
  ];
  if (redis) {
    readiness.push({
      name: "redis",
      essential: false,
      check: async () => void (await withDeadline(redis.ping(), config.redisCommandTimeoutMs)),
    });
  }

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
    const writes = { pool: db.pool, inFlightWaitMs: config.idempotencyWaitMs };
    const changes = {
      ...writes,
      record: recordEvent,
      settle: sequencer.settle,
      scheduleSnoozeEnd: snoozeEndScheduler(queue),
    };
    streamWaiters = await startStreamWaiters({ settings: db.settings, logger });
    const openapi = loadOpenApiDocument();
    const consoleBuild = findConsoleBuild();
    if (!consoleBuild) logger.warn("the console is not built (npm run build): / answers 404");
    const app = createApp({
      console: consoleBuild,
      config,
      logger,
      metrics,
      openapi,
      readiness,
      isShuttingDown: () => shuttingDown,
      authenticators: createAuthenticators({
        verifyKey: keyVerifier({ keys, lastUsed }),
        verifySession: sessionVerifier(db.pool),
      }),
      budget: requestBudget(limiters),
      handlers: {
        ...authHandlers({
          service: auth,
          pool: db.pool,
          secureCookies: config.publicBaseUrl.startsWith("https:"),
          registrationMode: config.registrationMode,
        }),
        ...workspaceHandlers(),
        ...apiKeyHandlers({ apiKeys: createApiKeyService(db.pool, { onKeyChanged: keys.forget }) }),
        ...leadHandlers({ ...changes, checkLead: schemaCheck(openapi.doc, "LeadCreate") }),
        ...conversationHandlers(changes),
        ...ticketHandlers({ ...changes, checkTicket: schemaCheck(openapi.doc, "TicketCreate") }),
        ...eventHandlers({ pool: db.pool, waiters: streamWaiters, openapi: openapi.doc }),
        ...webhookHandlers({ ...writes, urls, queue }),
      },
    });
    const listening = createServer(app);
    server = await new Promise<Server>((resolve, reject) => {
      listening.once("error", reject);
      listening.listen(config.port, config.host, () => {
        listening.off("error", reject);
        resolve(listening);
      });
    });
    // Idle keep-alive connections stay open longer than the load balancers' and clients' own idle timeouts (60 s is
    // common): a server that closes first races a client reusing the connection, whose request then fails with
    // "other side closed". Node's default is 5 s; headersTimeout must stay above it.
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
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
      if (server && config.shutdownDrainMs > 0) {
        // `/ready` answers 503 from now; the balancer stops sending new requests before the listener closes.
        logger.info({ drain_ms: config.shutdownDrainMs }, "draining: /ready answers 503, still serving");
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      if (server) {
        const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server?.closeAllConnections(), config.shutdownTimeoutMs);
        await closing;
        clearTimeout(timer);
      }
      await metricsServer?.close();
      await worker?.stop();
      await streamWaiters?.stop();
      await sequencer.stop();
      pruning.stop();
      retention.stop();
      await lastUsed.stop();
      await keys.stop();
      await clearedLimits?.stop();
      await queue.stop({ graceful: true, timeout: config.shutdownTimeoutMs });
      // pg-boss may still hold a connection or a timer after stop(): when the database goes down next, the errors it
      // reports are the expected end of those, not an outage worth a warning.
      queue.removeAllListeners("error");
      queue.on("error", (error) => logger.debug({ err: error }, "queue connection closed while stopping"));
      redis?.disconnect();
      await db.close();
    },
  };
}
