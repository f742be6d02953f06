/**
 * A graceful drain, as a load balancer needs it: on SIGTERM the API answers `/ready` with 503 at once, keeps serving
 * (each answer saying `Connection: close`) for SHUTDOWN_DRAIN_MS, then closes and exits 0.
 */
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { bareEnv, runServer } from "../helpers/process.ts";

describe("SIGTERM with a drain period", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("fails /ready at once, serves through the drain, then exits 0", async () => {
    const server = await runServer(
      ["api"],
      bareEnv({ DATABASE_URL: database.url, PORT: "0", SHUTDOWN_DRAIN_MS: "1500" }),
    );
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    const exited = once(server.child, "exit");
    const signalled = Date.now();
    server.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "unavailable", shutting_down: true });
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get("connection")).toBe("close");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1_500);
    expect(server.logs.some((log) => log.msg === "draining: /ready answers 503, still serving")).toBe(true);
  });
});
