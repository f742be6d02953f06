/**
 * Benchmark of webhook operations on the machine's PostgreSQL, in one run, the figures side by side:
 *   1. An outage: a receiver refuses everything while OUTAGE events happen to its subscription (retry schedule
 *      compressed to two attempts); the owner's e-mails for it are counted. Then the subscription gets throttles of
 *      10/s and 5 at once, and one recover call sends every failed delivery again: each once more with its first
 *      attempts' id and body, the most the receiver saw in any second and at once, the stats afterwards. Meanwhile a
 *      subscription of another workspace gets a new event every 500 ms: the time from sending its change to receipt.
 *   2. Head-of-line blocking: a third subscription, with a receiver that takes 2 s to answer and no throttle of its
 *      own, holds a backlog of BACKLOG deliveries (made failed in SQL, then recovered through the API, so every one is
 *      a pg-boss job); the other subscription's change-to-receipt time beside it, against the same without a backlog.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhook-operations
 *   (OUTAGE=5000 BACKLOG=100000 by default)
 */
import { createClient, type ServiceClient } from "@service/sdk";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { makeCertificates, mostInOneSecond, startReceiver } from "../helpers/receiver.ts";
import { benchDatabase } from "./database.ts";
import { benchServiceEnv } from "./service-env.ts";

const OUTAGE = Number(process.env.OUTAGE ?? 5000);
const BACKLOG = Number(process.env.BACKLOG ?? 100_000);
const RATE = 10;
const CONCURRENT = 5;

const database = await benchDatabase();
const certificates = await makeCertificates();
const receiver = await startReceiver(certificates);
const env = benchServiceEnv(database.url, {
  NODE_EXTRA_CA_CERTS: certificates.caFile,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  WEBHOOK_RETRY_SCHEDULE: "0",
  WEBHOOK_POLL_INTERVAL_MS: "500",
});
const server = await runServer([], env, undefined, [...GC_FLAGS]);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });

async function newClient(name: string): Promise<ServiceClient> {
  const workspace = await createWorkspace(pool, { name, ownerEmail: `${name.toLowerCase()}@example.com` });
  const { key } = await createApiKey(pool, {
    workspaceId: workspace.workspace_id,
    name,
    scopes: ["leads:write", "webhooks:read", "webhooks:write"],
  });
  return createClient({ apiKey: key, baseUrl: server.url });
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A change every 500 ms on `client` while `running()`; the times from sending each to its receipt on `path`. */
async function probe(client: ServiceClient, path: string, running: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; running(); i++) {
    const before = receiver.received.filter((item) => item.path === path).length;
    const sent = Date.now();
    await client.POST("/v1/leads", { body: { name: `probe ${i}` } });
    const [got] = (await receiver.waitFor(before + 1, path, 60_000)).slice(before);
    latencies.push((got?.at ?? Date.now()) - sent);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return latencies;
}

const summary = (values: number[]) =>
  `p50 ${percentile(values, 0.5)} ms, p99 ${percentile(values, 0.99)} ms, max ${Math.max(...values)} ms (${values.length})`;

// In flight at the throttled receiver, and at most.
const flight = { now: 0, most: 0 };
let outageStatus = 500;
receiver.respond = (request) => {
  if (request.path === "/slow") return { status: 204, delayMs: 2000 };
  if (request.path !== "/outage") return { status: 204 };
  flight.now++;
  flight.most = Math.max(flight.most, flight.now);
  const status = outageStatus;
  const done = new Promise((resolve) => setTimeout(resolve, 50)).then(() => {
    flight.now--;
  });
  return { status, after: done };
};

try {
  const outage = await newClient("Outage");
  const other = await newClient("Other");
  const { data: throttled } = await outage.POST("/v1/webhooks", {
    body: { url: `${receiver.url}/outage`, events: ["lead.captured"] },
  });
  await other.POST("/v1/webhooks", { body: { url: `${receiver.url}/other`, events: ["lead.captured"] } });
  const webhookId = throttled?.id as string;
  const since = new Date(Date.now() - 1000).toISOString();

  // 1. The outage.
  for (let i = 0; i < OUTAGE; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, OUTAGE - i) }, (_, j) =>
        outage.POST("/v1/leads", { body: { name: `outage ${i + j}` } }),
      ),
    );
  }
  const stats = async () =>
    (
      await outage.GET("/v1/webhooks/{webhook_id}/stats", {
        params: { path: { webhook_id: webhookId }, query: { since } },
      })
    ).data;
  await until(async () => (await stats())?.deliveries.failed === OUTAGE, 600_000);
  const refused = receiver.received.filter((item) => item.path === "/outage");
  const firstBody = new Map(refused.map((item) => [item.headers["webhook-id"], item.body]));
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const { rows: mails } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbox WHERE kind = 'webhook-failing'",
  );
  console.log(
    `outage: ${OUTAGE} events, ${refused.length} refused attempts, ${OUTAGE} deliveries failed; owner e-mails: ${mails[0]?.n}`,
  );

  await outage.PATCH("/v1/webhooks/{webhook_id}", {
    params: { path: { webhook_id: webhookId } },
    body: { max_deliveries_per_second: RATE, max_concurrent_deliveries: CONCURRENT },
  });
  outageStatus = 204;
  flight.most = 0;
  let recovering = true;
  const probing = probe(other, "/other", () => recovering);
  const started = Date.now();
  const { data: recovery, response } = await outage.POST("/v1/webhooks/{webhook_id}/recover", {
    params: { path: { webhook_id: webhookId } },
    body: { since },
  });
  const recovered = (await receiver.waitFor(refused.length + OUTAGE, "/outage", 3_600_000)).slice(refused.length);
  const seconds = (Date.now() - started) / 1000;
  recovering = false;
  const probed = await probing;
  const ids = new Set(recovered.map((item) => item.headers["webhook-id"]));
  const same = recovered.every((item) => firstBody.get(item.headers["webhook-id"]) === item.body);
  await until(async () => (await stats())?.deliveries.succeeded === OUTAGE, 60_000);
  const after = await stats();
  console.log(
    `recover: ${response.status} with ${recovery?.failed_deliveries} to send; ${recovered.length} sent in ${seconds.toFixed(0)} s ` +
      `(${(recovered.length / seconds).toFixed(1)}/s), ${ids.size} distinct ids, all with their first id and body: ${same}`,
  );
  console.log(
    `  receiver saw at most ${mostInOneSecond(recovered.map((item) => item.at))} in one second (limit ${RATE}) and ${flight.most} at once (limit ${CONCURRENT}); ` +
      `stats after: ${JSON.stringify(after?.deliveries)}`,
  );
  console.log(`  another workspace's new deliveries meanwhile, send → receipt: ${summary(probed)}`);

  // 2. Head-of-line blocking under a backlog.
  let baseline = true;
  setTimeout(() => {
    baseline = false;
  }, 15_000);
  const alone = await probe(other, "/other", () => baseline);
  const slow = await newClient("Slow");
  const { data: slowHook } = await slow.POST("/v1/webhooks", {
    body: { url: `${receiver.url}/slow`, events: ["lead.captured"] },
  });
  const slowId = slowHook?.id as string;
  const backlogSince = new Date(Date.now() - 60_000);
  await pool.query(
    `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, attempt_count, created_at)
     SELECT 'dlv_' || substr(w.id, 4, 10) || lpad(upper(to_hex(n)), 16, '0'), w.workspace_id, w.id,
            'evt_01JD3Z7D1B2C3D4E5F6G7H8J9K', 'lead.captured', '{}', 'failed', 1, now()
       FROM webhooks w, generate_series(1, $2) AS n WHERE w.id = $1`,
    [slowId, BACKLOG],
  );
  const enqueueStarted = Date.now();
  await slow.POST("/v1/webhooks/{webhook_id}/recover", {
    params: { path: { webhook_id: slowId } },
    body: { since: backlogSince.toISOString() },
  });
  await until(async () => {
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1 AND status = 'pending'",
      [slowId],
    );
    return (rows[0]?.n ?? 0) >= BACKLOG - 1000;
  }, 600_000);
  await pool.query("ANALYZE");
  console.log(
    `backlog: ${BACKLOG} deliveries of one slow subscription enqueued by one recover in ${((Date.now() - enqueueStarted) / 1000).toFixed(0)} s`,
  );
  let blocked = true;
  setTimeout(() => {
    blocked = false;
  }, 30_000);
  const beside = await probe(other, "/other", () => blocked);
  const { rows: backlogLeft } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = $1 AND status = 'pending'",
    [slowId],
  );
  console.log(`another subscription's send → receipt, alone: ${summary(alone)}`);
  console.log(
    `  beside a backlog of ${BACKLOG} (slow receiver, 10 at once, ${backlogLeft[0]?.n} still pending): ${summary(beside)}`,
  );
} finally {
  await pool.end();
  await server.stop("SIGKILL");
  await receiver.close();
  await database.drop();
}
