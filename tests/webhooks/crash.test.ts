/**
 * At least once: SIGKILL the service (API and worker) twice in the middle of a burst of 1,000 events; after each
 * restart on the same database, pg-boss hands the jobs of the attempts the killed worker held to the new one, and every
 * event reaches the receiver at least once (a duplicate carries the same `webhook-id`).
 */
import { createClient } from "@service/sdk";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { DELIVERY_QUEUE } from "../../server/src/domain/webhooks/delivery-jobs.ts";
import { QUEUE_SCHEMA } from "../../server/src/jobs/queue.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";
import { makeCertificates, startReceiver } from "../helpers/receiver.ts";
import { ALL_SCOPES, ok } from "../helpers/sdk.ts";

const EVENTS = 1000;

describe("a worker killed during a burst", () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  });

  it(`loses none of ${EVENTS} events`, { timeout: 180_000 }, async () => {
    const certificates = await makeCertificates();
    const receiver = await startReceiver(certificates);
    cleanup.push(() => receiver.close());
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const env = bareEnv({
      PORT: "0",
      DATABASE_URL: database.url,
      NODE_EXTRA_CA_CERTS: certificates.caFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_TIMEOUT_MS: "2000",
      API_RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "warn",
    });
    let server: ServerProcess = await runServer([], { ...env, LOG_LEVEL: "info" });
    cleanup.push(() => server.stop("SIGKILL"));
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // Dropping the test database ends its connections: an idle client's error then is expected, not a failure.
    pool.on("error", () => undefined);
    cleanup.push(() => pool.end());
    const workspace = await createWorkspace(pool, { name: "Burst", ownerEmail: "burst@example.com" });
    const { key } = await createApiKey(pool, {
      workspaceId: workspace.workspace_id,
      name: "burst",
      scopes: ALL_SCOPES,
    });
    const client = createClient({ apiKey: key, baseUrl: server.url });
    ok(await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/burst`, events: ["lead.captured"] } }));

    // The process is killed after 350 and after 750 of the 1,000 writes, while its worker is delivering; a new one
    // takes over each time.
    const KILLS = [300, 700];
    // Each attempt takes a moment, so that the killed worker holds attempts in flight, whose jobs pg-boss recovers.
    receiver.respond = () => ({ status: 204, delayMs: 300 });
    const active = async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${QUEUE_SCHEMA}.job WHERE name = $1 AND state = 'active'`,
          [DELIVERY_QUEUE],
        )
      ).rows[0]?.n ?? 0;
    for (let start = 0; start < EVENTS; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, EVENTS - start) }, (_, i) =>
          client.POST("/v1/leads", { body: { name: `burst ${start + i}` } }),
        ),
      );
      if (KILLS.includes(start)) {
        // Killed while its worker holds attempts: their jobs stay active until pg-boss hands them to another.
        await expect.poll(active, { timeout: 10_000, interval: 10, message: "attempts in flight" }).toBeGreaterThan(0);
        expect(await server.stop("SIGKILL")).toBeNull();
        server = await runServer([], { ...env, LOG_LEVEL: "info" });
        client.POST = createClient({ apiKey: key, baseUrl: server.url }).POST;
      }
    }
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM events WHERE workspace_id = $1", [
      workspace.workspace_id,
    ]);
    const recorded = rows[0].n as number;
    expect(recorded).toBeGreaterThanOrEqual(EVENTS - 50 * KILLS.length);

    const deadline = Date.now() + 120_000;
    let distinct = 0;
    while (Date.now() < deadline) {
      distinct = new Set(receiver.received.filter((r) => r.path === "/burst").map((r) => r.headers["webhook-id"])).size;
      if (distinct >= recorded) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(distinct, "every recorded event delivered at least once").toBe(recorded);
    const { rows: events } = await pool.query("SELECT id FROM events WHERE workspace_id = $1", [
      workspace.workspace_id,
    ]);
    const got = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
    expect(events.filter((event) => !got.has(event.id))).toEqual([]);
  });
});
