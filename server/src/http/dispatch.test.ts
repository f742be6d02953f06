/**
 * The app's frame around the operations, with handlers of the test's making: what reaches the client when a handler fails in ways
 * the real handlers should not (the whole service is tested through its real handlers in tests/).
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/database.ts";
import { LEAD, stubHandlers } from "../../../tests/helpers/stub-handlers.ts";
import { migrate } from "../db/migrate.ts";
import { write } from "../domain/idempotency/write-handler.ts";
import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import { newId } from "../lib/ids.ts";
import { createMetrics } from "../ops/metrics.ts";
import { createLimiters } from "../rate-limit/limiters.ts";
import { createApp } from "./app.ts";
import { type RequestBudget, requestBudget } from "./budget.ts";
import { loadOpenApiDocument } from "./openapi-document.ts";

const principal: Principal = { kind: "api_key", id: "key_1", workspaceId: "ws_1", scopes: [] };
/** The app with the test's handlers and budget (none: every request allowed). */
async function startServer(
  special: Record<string, (call: never) => Promise<unknown>>,
  budget?: RequestBudget,
  caller: Principal = principal,
) {
  const app = createApp({
    config: { trustProxy: false, bodyLimitBytes: 1024, validateResponses: true },
    logger: pino({ level: "silent" }),
    metrics: createMetrics(),
    openapi: loadOpenApiDocument(),
    readiness: [],
    handlers: stubHandlers(special),
    authenticators: {
      ApiKeyBearer: () => async () => ({ principal: caller }),
      SessionCookie: () => async () => ({ principal: caller }),
    },
    budget: budget ?? { spend: async () => undefined, hasRoom: () => false },
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let server: Server;
let base: string;
beforeAll(async () => {
  ({ server, base } = await startServer({
    // A header Node refuses to write: not even the problem can be sent.
    Leads_get: async () => {
      throw new AppError("LEAD_NOT_FOUND", { headers: { "X-Broken": "a\nb" } });
    },
    // An answer the contract does not allow.
    Leads_list: async () => ({ status: 200, body: { object: "list", data: "nope" } }),
  }));
});
afterAll(() => server.close());

describe("the contract's operations", () => {
  it("ends the connection, not the process, when not even the problem can be written", async () => {
    await expect(fetch(`${base}/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7`)).rejects.toThrow();
    const next = await fetch(`${base}/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7`, { method: "DELETE" });
    expect(next.status).toBe(204);
  });

  it("answers a reply that breaks the contract as a 500 problem when responses are checked", async () => {
    const response = await fetch(`${base}/v1/leads`);
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR" });
  });

  it("answers a body over the limit as a 413 problem before any handler runs", async () => {
    const response = await fetch(`${base}/v1/leads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(2048) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });
});

/**
 * The real budget, its decisions 100 ms late: every request of a burst then arrives while the decisions of the
 * burst's first ones are still out, so which requests start early does not depend on how fast the sockets connect.
 */
function slowed(budget: RequestBudget): RequestBudget {
  return {
    spend: async (caller, route) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return budget.spend(caller, route);
    },
    hasRoom: (caller) => budget.hasRoom(caller),
  };
}

describe("reads while the budget is checked, on real limiters (PostgreSQL)", () => {
  const BUDGET = 3;
  let database: TestDatabase;
  let pool: pg.Pool;
  let served: { server: Server; base: string };
  let reads = 0;
  const caller = { ...principal, id: "key_budget", workspaceId: newId("workspace") };

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 8 });
    await migrate(pool);
    await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Budget')", [caller.workspaceId]);
    await pool.query("CREATE TABLE written (id serial PRIMARY KEY)");
    const limiters = createLimiters({
      redis: undefined,
      pool,
      config: {
        rateLimitKeyPrefix: "test",
        rateLimits: { windows: {}, points: { "api-key": BUDGET } },
        redisCommandTimeoutMs: 500,
      },
      logger: pino({ level: "silent" }),
    });
    served = await startServer(
      {
        Leads_list: async () => {
          reads++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { status: 200, body: { object: "list", data: [], has_more: false, next_cursor: null } };
        },
        Leads_create: write({ pool, inFlightWaitMs: 1_000 }, async (_call: never, db) => {
          await db.query("INSERT INTO written DEFAULT VALUES");
          return { status: 201, body: LEAD };
        }),
      },
      slowed(requestBudget(limiters)),
      caller,
    );
  });
  afterAll(async () => {
    served.server.close();
    await pool.end();
    await database.drop();
  });

  const list = () => fetch(`${served.base}/v1/leads`);
  const create = (key: string = randomUUID()) =>
    fetch(`${served.base}/v1/leads`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ email: "a@example.com" }),
    });
  const written = async () => Number((await pool.query("SELECT count(*) FROM written")).rows[0].count);
  beforeEach(async () => {
    // A new key each time: an api-key budget is counted by the key's id.
    caller.id = `key_${randomUUID()}`;
    reads = 0;
  });

  it("reads beside the check once the key has room, drops the reads a refused budget made, and reads nothing for a key over its budget", async () => {
    // Unknown key: the decision comes first (1 read, 2 left).
    expect((await list()).status).toBe(200);
    expect(reads).toBe(1);
    // The key had room: all four read while their budget is checked; two are allowed, two refused.
    const burst = await Promise.all([list(), list(), list(), list()]);
    expect(burst.map((response) => response.status).sort()).toEqual([200, 200, 429, 429]);
    expect(reads).toBe(5);
    const refused = burst.find((response) => response.status === 429) as Response;
    expect(refused.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(await refused.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect(refused.headers.get("ratelimit")).toMatch(/^"api-key";r=0;t=\d+$/);
    // Over its budget now: the decision comes first, and no request reads.
    const over = await Promise.all(Array.from({ length: 10 }, list));
    expect(over.map((response) => response.status)).toEqual(Array(10).fill(429));
    expect(reads).toBe(5);
  });

  it("starts writes beside the check once the key has room, and writes nothing the budget refuses", async () => {
    const before = await written();
    const first = await create("replayed");
    expect(first.status).toBe(201);
    const burst = await Promise.all([create(), create(), create(), create()]);
    expect(burst.map((response) => response.status).sort()).toEqual([201, 201, 429, 429]);
    expect(await written()).toBe(before + 3);
    // Over its budget: neither a new write nor the replay of a stored one.
    const over = await Promise.all([create(), create("replayed")]);
    expect(over.map((response) => response.status)).toEqual([429, 429]);
    expect(await written()).toBe(before + 3);
    const stored = await pool.query("SELECT count(*) FROM idempotency_keys WHERE workspace_id = $1", [
      caller.workspaceId,
    ]);
    expect(Number(stored.rows[0].count)).toBe(3);
  });
});
