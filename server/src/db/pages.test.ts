import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/database.ts";
import { listPage, rowLimit } from "./pages.ts";

let database: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(`CREATE TEMP TABLE items (workspace_id text, id text, status text, PRIMARY KEY (workspace_id, id));
    INSERT INTO items SELECT 'ws_' || (g % 3), 'item_' || lpad(g::text, 6, '0'), 'new' FROM generate_series(1, 3000) g;
    ANALYZE items`);
});
afterAll(async () => {
  await client.end();
  await database.drop();
});

describe("rowLimit", () => {
  it("writes a positive integer and refuses anything else", () => {
    expect(rowLimit(21)).toBe("21");
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, "1; DROP TABLE items" as never]) {
      expect(() => rowLimit(bad)).toThrow(/not a positive integer/);
    }
  });
});

describe("listPage", () => {
  const page = (limit: number, filters: [string, unknown][] = []) =>
    listPage(
      client,
      { select: "SELECT * FROM items", kind: "lead", workspaceId: "ws_1", filters },
      { limit },
      (row: { id: string }) => row.id,
    );

  it("pages newest first with the row count asked for", async () => {
    const first = await page(5);
    expect(first.data).toHaveLength(5);
    expect(first.has_more).toBe(true);
    expect([...first.data].sort().reverse()).toEqual(first.data);
  });

  it("lets PostgreSQL keep one plan for each page query instead of planning it on every call", async () => {
    for (let call = 0; call < 10; call++) await page(20, [["status = ?", "new"]]);
    const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%FROM items%status%'",
    );
    expect(rows).toHaveLength(1);
    // PostgreSQL makes custom plans for the first five calls, then keeps the generic plan when it costs no more.
    expect(Number(rows[0]?.generic_plans)).toBeGreaterThanOrEqual(5);
  });
});
