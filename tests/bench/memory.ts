/**
 * Memory under steady load: the service as `npm start` runs it in production (its API processes and the worker beside
 * them; WEB_CONCURRENCY as set, else the default), on the machine's PostgreSQL and Redis, with a subscription that
 * delivers every new lead to a local receiver. It takes 300 requests/s (half `GET /v1/leads?limit=20`, half
 * `POST /v1/leads` with an Idempotency-Key) for MEMORY_BENCH_MINUTES (60); every 30 s it samples each process's
 * resident memory (/proc), then prints the samples, each process's peak, and its growth over the last half of the run
 * (the first minutes fill caches and pools once; a leak shows in the second half as in the first).
 * Targets (issue 40): every API process at or under 200 MB of RSS, and no process (API, worker, the cluster's primary)
 * growing by more than 5 MB over the last 30 minutes of an hour.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:memory
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { CLUSTER_INDEX_ENV, CLUSTER_ROLE_ENV } from "../../server/src/cluster-env.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { load } from "./load.ts";
import { startCountReceiver, subscribeToLeads } from "./receiver.ts";
import { benchWorkspace } from "./rounds.ts";
import { benchServiceEnv } from "./service-env.ts";

const MINUTES = Number(process.env.MEMORY_BENCH_MINUTES ?? 60);
const RATE = 300;
const SAMPLE_SECONDS = 30;
const TARGET_MB = 200;
const FLAT_MB = 5;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** Resident memory of a process, in bytes (/proc/PID/status, VmRSS in kB). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((text) => text.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) * 1024;
}

/** The processes a cluster's primary forked, named by the role it gave each (/proc: their parent, environment). */
function clusterChildren(primary: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const parent = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
      if (Number(parent) !== primary) continue;
      const env = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      const role = env.find((item) => item.startsWith(`${CLUSTER_ROLE_ENV}=`))?.split("=")[1];
      const index = env.find((item) => item.startsWith(`${CLUSTER_INDEX_ENV}=`))?.split("=")[1];
      if (role) found.set(role === "api" ? `api ${index}` : role, Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

const database = await benchDatabase();
const receiver = await startCountReceiver();
const server = await runServer(
  [],
  benchServiceEnv(database.url, {
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    LOG_LEVEL: "info",
  }),
);
try {
  const { key } = await benchWorkspace(database.url, ["leads:read", "leads:write", "webhooks:write"]);
  const auth = { authorization: `Bearer ${key}` };
  await subscribeToLeads(server.url, key, receiver.url);

  const processes = clusterChildren(server.child.pid as number);
  if (![...processes.keys()].some((name) => name.startsWith("api")) || !processes.has("worker")) {
    throw new Error(`cluster processes not found: ${[...processes.keys()]}`);
  }
  const names = [...processes.keys()].sort();

  let n = 0;
  const make = () =>
    n++ % 2 === 0
      ? { method: "GET" as const, path: "/v1/leads?limit=20", headers: auth }
      : {
          method: "POST" as const,
          path: "/v1/leads",
          headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
          body: JSON.stringify({ email: `m.${randomUUID()}@example.com`, name: "Memory", tags: ["bench"] }),
        };
  const samples: Record<string, number>[] = [];
  const started = Date.now();
  const sample = () => {
    const row: Record<string, number> = { minute: Math.round(((Date.now() - started) / 60_000) * 10) / 10 };
    for (const name of names) row[name] = mb(rss(processes.get(name) as number));
    row.primary = mb(rss(server.child.pid as number));
    samples.push(row);
    console.log(
      `${row.minute} min: ${[...names, "primary"].map((name) => `${name} ${row[name]} MB`).join(", ")} (RSS)`,
    );
  };
  sample();
  const timer = setInterval(sample, SAMPLE_SECONDS * 1_000);
  const result = await load("mixed", server.url, make, {
    rate: RATE,
    durationSeconds: MINUTES * 60,
    warmUpSeconds: 0,
    connections: 16,
  });
  clearInterval(timer);
  sample();

  console.table(samples);
  console.log(
    `load: ${result.requests} requests (${result.perSecond}/s), ${result.errors} errors, p50 ${result.p50} ms, ` +
      `p99 ${result.p99} ms`,
  );
  const secondHalf = samples.filter((row) => (row.minute ?? 0) >= MINUTES / 2);
  const verdicts: string[] = [];
  for (const name of [...names, "primary"]) {
    const first = secondHalf[0]?.[name] ?? Number.NaN;
    const last = secondHalf.at(-1)?.[name] ?? Number.NaN;
    const peak = Math.max(...samples.map((row) => row[name] ?? 0));
    const growth = last - first;
    console.log(
      `${name}: peak ${peak} MB RSS; ${first} MB at ${secondHalf[0]?.minute} min, ${last} MB at the end: ` +
        `${growth.toFixed(1)} MB of growth over the last half`,
    );
    const flat = `growth ≤ ${FLAT_MB} MB ${growth <= FLAT_MB ? "met" : "NOT met"} (${growth.toFixed(1)} MB)`;
    verdicts.push(
      name.startsWith("api")
        ? `${name} peak ≤ ${TARGET_MB} MB ${peak <= TARGET_MB ? "met" : "NOT met"} (${peak} MB), ${flat}`
        : `${name} ${flat}`,
    );
  }
  console.log(`target: ${verdicts.join("; ")}`);
} finally {
  await server.stop();
  receiver.child.kill();
  await database.drop();
}
