/**
 * Opens PostgreSQL: `DATABASE_URL` when set, otherwise the embedded server under `DATA_DIR`.
 *
 * Every connection of the service (this pool, pg-boss's pool, the LISTEN clients) gets the same limits, so that a
 * database that refuses connections or stops answering costs a request a bounded time, never a hang:
 * `connectionTimeoutMillis` bounds connecting and waiting for a pooled client, `statement_timeout` makes the server
 * cancel a slow statement, and `query_timeout` makes the client give up on a server that does not answer at all
 * (frozen, or cut off without a TCP reset).
 */
import pg from "pg";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { PASS_POOL_MAX } from "./connection-budget.ts";
import { startEmbeddedPostgres } from "./embedded.ts";
import { useFastTimestamps } from "./timestamps.ts";

/** How much later than the server's statement_timeout the client itself gives up on an answer. */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

export type DatabaseConfig = Pick<
  Config,
  "databaseUrl" | "dataDir" | "dbConnectTimeoutMs" | "dbStatementTimeoutMs" | "dbPoolMax"
>;

/** The settings every connection of the service is made with. */
export interface ConnectionSettings {
  readonly connectionString: string;
  readonly connectionTimeoutMillis: number;
  readonly statement_timeout: number;
  readonly query_timeout: number;
  readonly keepAlive: true;
}

export interface Database {
  readonly pool: pg.Pool;
  /**
   * The sequencer's own connection (a pool of one, opened at the first pass): every write waits for a pass, so a pass
   * must never queue for a connection behind the requests that wait for it.
   */
  readonly passPool: pg.Pool;
  readonly url: string;
  readonly settings: ConnectionSettings;
  readonly embedded: boolean;
  close(): Promise<void>;
}

export function connectionSettings(url: string, config: DatabaseConfig): ConnectionSettings {
  return {
    connectionString: url,
    connectionTimeoutMillis: config.dbConnectTimeoutMs,
    statement_timeout: config.dbStatementTimeoutMs,
    query_timeout: config.dbStatementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    keepAlive: true,
  };
}

/**
 * A pool that survives the loss of any of its connections. pg-pool listens for errors of idle clients only: a
 * client checked out with `pool.connect()` (a transaction) whose connection ends unexpectedly emits `error` with no
 * listener, which kills the process. Every client gets its own listener when it is made; the query in flight fails
 * with the error, and the broken client is discarded when it is released.
 */
function createPool(settings: ConnectionSettings, options: { max: number; logger: Logger; name: string }) {
  const pool = new pg.Pool({
    ...settings,
    max: options.max,
    idleTimeoutMillis: 30_000,
    application_name: options.name,
  });
  const lost = (error: Error) => options.logger.warn({ err: error }, "PostgreSQL connection lost");
  const open = new Set<pg.Client>();
  pool.on("connect", (client) => {
    client.on("error", lost);
    open.add(client);
    client.once("end", () => open.delete(client));
  });
  pool.on("error", lost);
  openConnections.set(pool, open);
  return pool;
}

const openConnections = new WeakMap<pg.Pool, Set<pg.Client>>();

/**
 * Ends a pool made by `createPool` and waits until its connections have closed, for `waitMs` at most (a frozen server
 * never closes them). `pool.end()` resolves as soon as it has asked each client to end, before PostgreSQL has seen
 * their Terminate: an embedded PostgreSQL stopped right then still counts them as clients and ends them with 57P01,
 * one "connection lost" warning each.
 */
async function endPool(pool: pg.Pool, waitMs: number): Promise<void> {
  // A client leaves the set when its socket has closed ("end"), whatever closed it. (Not events.once: it rejects on
  // an "error" first, and an error while closing is no reason to stop waiting.)
  const closing = [...(openConnections.get(pool) ?? [])].map(
    (client) => new Promise((resolve) => client.once("end", resolve)),
  );
  await pool.end();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(closing),
    new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    }),
  ]);
  clearTimeout(timer);
}

export async function openDatabase(config: DatabaseConfig, logger: Logger): Promise<Database> {
  useFastTimestamps();
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres(config.dataDir, logger) : undefined;
  const url = config.databaseUrl ?? embedded?.url;
  if (url === undefined) throw new Error("no database");
  const settings = connectionSettings(url, config);
  const pool = createPool(settings, { max: config.dbPoolMax, logger, name: "service" });
  const passPool = createPool(settings, { max: PASS_POOL_MAX, logger, name: "service-sequencer" });
  return {
    pool,
    passPool,
    url,
    settings,
    embedded: embedded !== undefined,
    async close() {
      await Promise.all([endPool(pool, config.dbConnectTimeoutMs), endPool(passPool, config.dbConnectTimeoutMs)]);
      await embedded?.stop();
    },
  };
}
