/**
 * The service's entry point: `node server/dist/main.js [start|api|worker|migrate]`.
 *
 *   start    API and worker in one process (default; what `npm start` runs)
 *   api      the HTTP API only, to scale out behind a load balancer
 *   worker   the background jobs only
 *   migrate  apply pending migrations and exit
 *
 * SIGTERM/SIGINT shut down gracefully: stop accepting, let in-flight requests finish (up to
 * SHUTDOWN_TIMEOUT_MS), then close the queue, Redis and PostgreSQL.
 */

import cluster from "node:cluster";
import { fileURLToPath } from "node:url";
import { CLUSTER_INDEX_ENV, CLUSTER_ROLE_ENV } from "./cluster-env.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { ConnectionBudgetError } from "./db/connection-budget.ts";
import { unappliedPatches } from "./lib/patches.ts";
import { createLogger, flushLogs } from "./logger.ts";
import { startTelemetry } from "./ops/telemetry.ts";
import { yieldCpu } from "./priority.ts";

const ROLES = ["start", "api", "worker", "migrate"] as const;

/** The install's root (a clone, or an unpacked release): main.js is in server/dist/, main.ts in server/src/. */
const INSTALL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * One line for the person who ran `npm start`: where the console, the reference and the API are. In a terminal it
 * is plain text; otherwise (a log collector reads stdout) it is a log entry like any other.
 */
function announce(url: string, logger: ReturnType<typeof createLogger>): void {
  const line = `Service Platform is ready: console ${url}/ · API reference ${url}/docs · API ${url}/v1`;
  if (process.stdout.isTTY) process.stdout.write(`${line}\n`);
  else logger.info({ console: `${url}/`, docs: `${url}/docs`, api: `${url}/v1` }, line);
}
type Role = (typeof ROLES)[number];

async function main(): Promise<void> {
  const role = (cluster.isWorker ? process.env[CLUSTER_ROLE_ENV] : (process.argv[2] ?? "start")) as Role;
  if (!ROLES.includes(role)) {
    console.error(`usage: main.js [${ROLES.join("|")}]`);
    process.exit(2);
  }
  // The primary checks for the processes it forks: they load the same files.
  const unapplied = cluster.isPrimary ? unappliedPatches(INSTALL_ROOT) : [];
  if (unapplied.length > 0) {
    console.error(
      `cannot start: ${unapplied.join("; ")}; install again (npm ci, or unpack the release) or run ` +
        `\`npx patch-package\` in ${INSTALL_ROOT} (patches/README.md)`,
    );
    process.exit(1);
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(2);
  }
  const logger = createLogger(config);
  // OpenTelemetry must patch Express, pg and ioredis before they are loaded: the service's modules are imported after.
  const stopTelemetry = config.otelEndpoint ? await startTelemetry() : undefined;
  const { runPrimary, runsAsCluster } = await import("./cluster.ts");
  const { startService } = await import("./service.ts");
  if (cluster.isPrimary && runsAsCluster(config, role)) {
    await runPrimary(config, logger, role);
    return;
  }
  if (role === "worker") yieldCpu(config.workerNice, logger);
  const service = await startService(config, logger, role);
  if (role === "migrate") {
    await service.stop();
    flushLogs(logger);
    return;
  }

  // One announcement, from the first process (every process of a cluster serves the same address).
  if (service.url && (process.env[CLUSTER_INDEX_ENV] ?? "0") === "0") announce(service.url, logger);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    try {
      await service.stop();
      await stopTelemetry?.();
      logger.info("stopped");
      flushLogs(logger);
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

try {
  await main();
} catch (error) {
  // A start refused for its settings says why in one line; anything else with its stack.
  console.error(error instanceof ConnectionBudgetError ? `cannot start: ${error.message}` : error);
  process.exit(1);
}
