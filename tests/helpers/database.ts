/**
 * A fresh database per test file on the run's PostgreSQL server. It is dropped when the file's tests pass and
 * kept for inspection when one fails (its name is printed).
 */
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import pg from "pg";
import { expect, inject } from "vitest";

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** How long a drop waits for the test's connections to close before it cuts them. */
const DROP_WAIT_MS = 3_000;

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * `ownedByNewRole`: the database belongs to a role made for it, with LOGIN and nothing else (no superuser, no
 * CREATEDB, no CREATEROLE), and the URL connects as that role: the privileges docs/deployment.md tells an operator
 * to give the service. The role is dropped with the database.
 */
export async function createTestDatabase(options: { ownedByNewRole?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject("adminDatabaseUrl");
  // CI runs the files that use the run's PostgreSQL again on the embedded default (.ci/run): they name themselves.
  const log = process.env.TEST_BACKING_LOG;
  const file = expect.getState().testPath;
  if (log && file) appendFileSync(log, `${file}\n`);
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const role = options.ownedByNewRole ? name : undefined;
  // A password, since a server may ask for one (the embedded server does: scram-sha-256).
  const password = randomBytes(12).toString("hex");
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (role) await admin.query(`CREATE ROLE ${admin.escapeIdentifier(role)} LOGIN PASSWORD '${password}'`);
    const owner = role ? ` OWNER ${admin.escapeIdentifier(role)}` : "";
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}${owner}`);
  } finally {
    await admin.end();
  }
  const url = new URL(withDatabase(adminUrl, name));
  if (role) {
    url.username = role;
    url.password = password;
  }
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        // pg-pool's end() resolves once it has asked its connections to close, not once they have. FORCE would cut one
        // still closing: the FATAL reaches the pool's "error" event through the client's idle listener, and a test's
        // pool that does not listen to it (most do not) fails the run with an uncaught exception. So the test's own
        // connections get a moment to go; FORCE is for what a test left behind.
        for (let waited = 0; waited < DROP_WAIT_MS; waited += 50) {
          const { rows } = await client.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
            [name],
          );
          if (rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
        if (role) await client.query(`DROP ROLE IF EXISTS ${client.escapeIdentifier(role)}`);
      } finally {
        await client.end();
      }
    },
  };
}
