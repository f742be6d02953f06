/**
 * Versioned migrations: `server/migrations/NNNN_name.sql`, applied in order, each in its own transaction, and
 * recorded in `schema_migrations`. An advisory lock serialises concurrent starters (API and worker processes
 * starting together), so a migration never runs twice.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type pg from "pg";

const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations/", import.meta.url));

/** Any constant works; it only has to be the same in every process of this service. */
const MIGRATION_LOCK_ID = 726_354_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads and orders the migration files; refuses gaps and duplicates, which would mean a botched merge. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => {
      const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
      if (!match?.[1] || !match[2]) throw new Error(`Migration file name must be NNNN_name.sql: ${file}`);
      return { version: Number(match[1]), name: match[2], sql: readFileSync(`${dir}/${file}`, "utf8") };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`Migrations must be numbered 0001, 0002, … without gaps; found ${migration.version}`);
    }
  });
  return migrations;
}

/** Applies every pending migration; returns the versions it applied. */
export async function migrate(pool: pg.Pool, migrations: Migration[] = loadMigrations()): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>("SELECT version FROM schema_migrations");
    const done = new Set(rows.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
          migration.version,
          migration.name,
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.version}_${migration.name} failed`, { cause: error });
      }
      applied.push(migration.version);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    client.release();
  }
  return applied;
}
