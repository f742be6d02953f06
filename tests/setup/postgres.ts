/**
 * One PostgreSQL server for the whole run: the machine's (`DATABASE_URL`, as in CI) or, on a fresh machine,
 * an embedded one started here in a temporary folder. Each test file then creates its own database on it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../server/src/db/embedded.ts";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const configured = process.env.DATABASE_URL?.trim();
  if (configured) {
    project.provide("adminDatabaseUrl", configured);
    return async () => undefined;
  }
  const dataDir = mkdtempSync(join(tmpdir(), "service-test-pg-"));
  const embedded = await startEmbeddedPostgres(dataDir, pino({ level: "silent" }), "postgres");
  project.provide("adminDatabaseUrl", embedded.url);
  return async () => {
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
