/**
 * Benchmark of webhook delivery on the machine's PostgreSQL, in one run:
 *   - latency from the change to the receipt of its delivery (p50, p99), measured from the moment the POST that makes
 *     the change is sent (an upper bound on commit-to-receipt: it includes the API call);
 *   - deliveries per second to a local HTTPS receiver, over a burst of 2,000 events;
 *   - the verifier against the standardwebhooks library (see bench:verifier for the figures alone).
 * Targets: p50 under 200 ms, at least 300 deliveries/s on this 2-core machine.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks
 */
import { createClient } from "@service/sdk";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { makeCertificates, startReceiver } from "../helpers/receiver.ts";
import { benchDatabase } from "./database.ts";
import { benchServiceEnv } from "./service-env.ts";

const database = await benchDatabase();

const certificates = await makeCertificates();
const receiver = await startReceiver(certificates);
const env = benchServiceEnv(database.url, {
  NODE_EXTRA_CA_CERTS: certificates.caFile,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  LOG_LEVEL: "info",
});
// API and worker in one process for the latency run, as `npm start` runs them.
let server = await runServer([], env, undefined, [...GC_FLAGS]);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
try {
  const workspace = await createWorkspace(pool, { name: "Bench", ownerEmail: "bench@example.com" });
  const { key } = await createApiKey(pool, {
    workspaceId: workspace.workspace_id,
    name: "bench",
    scopes: ["leads:write", "webhooks:write"],
  });
  const client = createClient({ apiKey: key, baseUrl: server.url });
  await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/bench`, events: ["lead.captured"] } });

  // Latency: one change at a time.
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const before = receiver.received.length;
    const sent = Date.now();
    await client.POST("/v1/leads", { body: { name: `latency ${i}` } });
    const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
    latencies.push((delivery?.at ?? Date.now()) - sent);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  console.log(`change → receipt: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (200 changes, one at a time)`);

  // Throughput: 2,000 events written through an API-only process (no worker), then drained by a worker process.
  await server.stop("SIGTERM");
  server = await runServer(["api"], env, undefined, [...GC_FLAGS]);
  const api = createClient({ apiKey: key, baseUrl: server.url });
  const start = receiver.received.length;
  const BURST = 2000;
  const written = Date.now();
  for (let i = 0; i < BURST; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => api.POST("/v1/leads", { body: { name: `burst ${i + j}` } })),
    );
  }
  const writeSeconds = (Date.now() - written) / 1000;
  await server.stop("SIGTERM");
  const { spawn } = await import("node:child_process");
  const worker = spawn(process.execPath, [...GC_FLAGS, "server/dist/main.js", "worker"], { env, stdio: "ignore" });
  const burst = (await receiver.waitFor(start + BURST, undefined, 120_000)).slice(start);
  worker.kill("SIGTERM");
  const first = burst[0]?.at ?? 0;
  const last = burst[burst.length - 1]?.at ?? 0;
  console.log(
    `burst of ${BURST}: written in ${writeSeconds.toFixed(1)} s; delivered ${(BURST / ((last - first) / 1000)).toFixed(0)} deliveries/s ` +
      `(first to last receipt ${((last - first) / 1000).toFixed(1)} s)`,
  );
} finally {
  await pool.end();
  await server.stop("SIGKILL");
  await receiver.close();
  await database.drop();
}
