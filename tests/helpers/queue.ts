/**
 * The service's pg-boss queue on a test database, as an API process starts it (no workers, no maintenance), with the
 * delivery queue defined: for tests that enqueue or read jobs themselves.
 */
import type { PgBoss } from "pg-boss";
import pino from "pino";
import { connectionSettings } from "../../server/src/db/database.ts";
import { defineDeliveryQueue } from "../../server/src/domain/webhooks/delivery-jobs.ts";
import { startQueue } from "../../server/src/jobs/queue.ts";

export async function startTestQueue(url: string, options: { worker?: boolean } = {}): Promise<PgBoss> {
  const settings = connectionSettings(url, {
    databaseUrl: url,
    dataDir: ".data",
    dbConnectTimeoutMs: 5_000,
    dbStatementTimeoutMs: 60_000,
    dbPoolMax: 2,
  });
  const boss = await startQueue(settings, pino({ level: "silent" }), {
    worker: options.worker ?? false,
    superviseIntervalSeconds: 60,
  });
  await defineDeliveryQueue(boss, 15_000);
  return boss;
}
