/**
 * WEBHOOK_MAX_DELIVERIES_PER_SECOND: a worker drains a backlog at its set pace, not as fast as the CPU allows, so that
 * a burst of deliveries does not take the machine from the API. One event fanned out to 20 subscriptions makes 20
 * deliveries at once; at 10 a second they leave in two batches, a second apart. (Only the least time is asserted:
 * the pace guarantees it on any machine, while a slow machine may take longer.)
 */
import { createClient, type ServiceClient } from "@service/sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";
import { makeCertificates, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ALL_SCOPES, ok } from "../helpers/sdk.ts";

const SUBSCRIPTIONS = 20;
const PER_SECOND = 10;

let database: TestDatabase;
let server: ServerProcess;
let receiver: Receiver;
let client: ServiceClient;

beforeAll(async () => {
  const certificates = makeCertificates();
  receiver = await startReceiver(certificates);
  database = await createTestDatabase();
  server = await runServer(
    [],
    bareEnv({
      PORT: "0",
      DATABASE_URL: database.url,
      NODE_EXTRA_CA_CERTS: certificates.caFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_MAX_DELIVERIES_PER_SECOND: String(PER_SECOND),
      NODE_ENV: "test",
    }),
  );
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    const workspace = await createWorkspace(pool, { name: "Paced", ownerEmail: "paced@example.com" });
    const { key } = await createApiKey(pool, {
      workspaceId: workspace.workspace_id,
      name: "pacing",
      scopes: ALL_SCOPES,
    });
    client = createClient({ apiKey: key, baseUrl: server.url });
  } finally {
    await pool.end();
  }
});

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await database?.drop();
});

describe("WEBHOOK_MAX_DELIVERIES_PER_SECOND", () => {
  it("drains 20 deliveries of one event at 10 a second, in two batches a second apart", async () => {
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      ok(await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/paced/${i}`, events: ["lead.captured"] } }));
    }
    ok(await client.POST("/v1/leads", { body: { email: "paced@example.com" } }));
    await expect
      .poll(() => receiver.received.filter((request) => request.path.startsWith("/paced/")).length, { timeout: 15_000 })
      .toBe(SUBSCRIPTIONS);
    const times = receiver.received
      .filter((request) => request.path.startsWith("/paced/"))
      .map((request) => request.at);
    const spanMs = Math.max(...times) - Math.min(...times);
    // The second batch starts a second after the first. Half a second is left for the first batch's slower attempts
    // (new TLS connections); without the pace all 20 arrive within some 20 ms.
    expect(spanMs).toBeGreaterThanOrEqual(((SUBSCRIPTIONS - PER_SECOND) / PER_SECOND) * 1000 - 500);
    // Every one of them, each once.
    expect(new Set(receiver.received.map((request) => request.path)).size).toBe(SUBSCRIPTIONS);
  });
});
