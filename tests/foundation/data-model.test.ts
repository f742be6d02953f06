/**
 * docs/data-model.md is the tables as they are today: generated from a freshly migrated database (scripts/data-model.ts),
 * every table with its comment. Stale, it fails here as the generated OpenAPI does in CI.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderDataModel } from "../../scripts/data-model.ts";
import { migrate } from "../../server/src/db/migrate.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

describe("docs/data-model.md", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url });
    await migrate(pool);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it("is what the migrations make today (npm run docs:data-model), and says what every table is for", async () => {
    const page = await renderDataModel(pool);
    expect(page).not.toContain("(no comment");
    expect(readFileSync(new URL("../../docs/data-model.md", import.meta.url), "utf8")).toBe(page);
  });
});
