import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../server/src/db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

describe("migrations", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url });
    // Dropping the test database ends its connections: an idle client's error then is expected, not a failure.
    pool.on("error", () => undefined);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it("apply every migration once, even when several processes start together", async () => {
    const all = loadMigrations();
    const results = await Promise.all([migrate(pool), migrate(pool), migrate(pool)]);
    expect(results.flat().sort((a, b) => a - b)).toEqual(all.map((migration) => migration.version));
    const { rows } = await pool.query("SELECT version FROM schema_migrations ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual(all.map((migration) => migration.version));
    expect(await migrate(pool)).toEqual([]);
  });

  it("keep the functions the version before calls, under their old names, until they say to remove them", async () => {
    await migrate(pool);
    // 0015 renamed record_* to save_*: a process of the version before still calls the old names during a roll-out.
    const written = await pool.query("SELECT record_attempt_outcomes('[]'::jsonb, 1) AS written");
    expect(written.rows[0]?.written).toBe(0);
    const workspace = await pool.query<{ id: string }>(
      "INSERT INTO workspaces (id, name) VALUES ('ws_01K6DFZ1C00000000000000015', 'old names') RETURNING id",
    );
    const args = `'${workspace.rows[0]?.id}', 'key-0015', '\\x00'::bytea, 201, '{}', '{}'::jsonb, 24`;
    await pool.query(`SELECT record_idempotent_answer(${args})`);
    await expect(pool.query(`SELECT save_idempotent_answer(${args})`)).rejects.toMatchObject({ code: "IK001" });
    const gone = await pool.query(
      "SELECT proname FROM pg_proc WHERE proname IN ('record_idempotency_key', 'idempotency_key_taken')",
    );
    expect(gone.rows).toEqual([]);
  });

  it("roll back a failing migration whole and say which one failed", async () => {
    const broken = [
      ...loadMigrations(),
      { version: 999, name: "broken", sql: "CREATE TABLE half_done (id int); SELECT * FROM no_such_table;" },
    ];
    await expect(migrate(pool, broken)).rejects.toThrow(/999_broken/);
    const { rowCount } = await pool.query("SELECT 1 FROM pg_tables WHERE tablename = 'half_done'");
    expect(rowCount).toBe(0);
  });

  it("refuse a numbering gap, the sign of a botched merge", () => {
    const dir = mkdtempSync(join(tmpdir(), "migrations-"));
    try {
      writeFileSync(join(dir, "0001_a.sql"), "SELECT 1;");
      writeFileSync(join(dir, "0003_c.sql"), "SELECT 1;");
      expect(() => loadMigrations(dir)).toThrow(/without gaps/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
