/**
 * Opens PostgreSQL: `DATABASE_URL` when set, otherwise the embedded server under `DATA_DIR`.
 */
import pg from "pg";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { startEmbeddedPostgres } from "./embedded.ts";

export interface Database {
  readonly pool: pg.Pool;
  readonly url: string;
  readonly embedded: boolean;
  close(): Promise<void>;
}

export async function openDatabase(config: Pick<Config, "databaseUrl" | "dataDir">, logger: Logger): Promise<Database> {
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres(config.dataDir, logger) : undefined;
  const url = config.databaseUrl ?? embedded?.url;
  if (url === undefined) throw new Error("no database");
  const pool = new pg.Pool({ connectionString: url, max: 20, idleTimeoutMillis: 30_000 });
  // An idle client's error (the server restarting) must not crash the process; the pool replaces the client.
  pool.on("error", (error) => logger.warn({ err: error }, "idle PostgreSQL client failed"));
  return {
    pool,
    url,
    embedded: embedded !== undefined,
    async close() {
      await pool.end();
      await embedded?.stop();
    },
  };
}
