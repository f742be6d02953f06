/**
 * How many API processes a host should run when the worker runs beside them: API processes (WEB_CONCURRENCY) of 1, 2
 * and 3 on this machine's cores, each with a worker process beside it that delivers every new lead to a local
 * receiver (a subscription to `lead.captured`), as `npm start` runs them; the machine's PostgreSQL and Redis and the
 * load generator share the machine, as they did in the measurement that asked the question (issue 33). Each set,
 * started afresh, and the floors (servers/floors.mjs, one process, the same pool of 10) alternate in 3 rounds of
 * autocannon (32 connections, 3 s of warm-up, 5 s), and each figure is the median of its rounds:
 *
 *   GET /v1/leads?limit=20 and POST /v1/leads with an Idempotency-Key, against the floors' GET and POST
 *
 * Prints req/s, p50, p99 and the ratios to the floors per process count, then the count that measures best: the
 * most throughput among those within the targets (≥ 55 % of the floor's req/s, p99 ≤ 2× the floor's, GET and POST
 * alike), else the one with the lowest p99.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:processes
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { type LoadRequest, type LoadResult, load, report } from "./load.ts";
import { startCountReceiver, subscribeToLeads } from "./receiver.ts";
import { benchWorkspace, floorServer, medianOf, ratios, WARM_UP } from "./rounds.ts";
import { benchServiceEnv } from "./service-env.ts";

/** Each set's connections and each floor's: 100 is all the machine's PostgreSQL allows. */
const POOL_SIZE = "10";
const ROUNDS = 3;
const COUNTS = [1, 2, 3];
const TARGET = { share: 0.55, p99: 2 };

const database = await benchDatabase();
const children: ChildProcess[] = [];
try {
  const receiver = await startCountReceiver();
  children.push(receiver.child);
  const env = (extra: Record<string, string>) =>
    benchServiceEnv(database.url, {
      DB_POOL_MAX: POOL_SIZE,
      LOG_LEVEL: "info",
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      ...extra,
    });
  // One set at a time (the machine's PostgreSQL allows 100 connections); this one migrates the database.
  const start = async (count: number) => {
    const server = await runServer(["api"], env({ WEB_CONCURRENCY: String(count) }), undefined, [...GC_FLAGS]);
    children.push(server.child);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // every process of the set
    return server;
  };
  const first = await start(1);
  const { workspaceId, key } = await benchWorkspace(database.url, ["leads:read", "leads:write", "webhooks:write"]);
  // One worker for all the sets (each set's writes make its deliveries), at the priority `npm start` gives it.
  const worker = spawn(process.execPath, [...GC_FLAGS, "server/dist/main.js", "worker"], {
    env: env({ DB_POOL_MAX: "4" }),
    stdio: "ignore",
  });
  children.push(worker);
  const auth = { authorization: `Bearer ${key}` };
  await subscribeToLeads(first.url, key, receiver.url);
  await first.stop();

  const floors = {
    get: await floorServer("get", database.url, workspaceId, POOL_SIZE),
    post: await floorServer("post", database.url, workspaceId, POOL_SIZE),
  };
  children.push(floors.get.child, floors.post.child);
  const newLead = () => JSON.stringify({ email: `new.${randomUUID()}@example.com`, name: "Bench", tags: ["bench"] });
  const getPage = (): LoadRequest => ({ method: "GET", path: "/v1/leads?limit=20", headers: auth });
  const postLead = (): LoadRequest => ({
    method: "POST",
    path: "/v1/leads",
    headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
    body: newLead(),
  });
  const floorPost = (): LoadRequest => ({
    method: "POST",
    path: "/",
    headers: { "content-type": "application/json" },
    body: newLead(),
  });

  const runs = new Map<string, LoadResult[]>();
  // Every set just started: each warms up as the first round of bench:api does.
  const measure = async (name: string, url: string, make: () => LoadRequest) => {
    const result = await load(name, url, make, WARM_UP);
    runs.set(name, [...(runs.get(name) ?? []), result]);
  };
  const name = (method: string, count: number) => `${method}, ${count} API process${count > 1 ? "es" : ""}`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const count of COUNTS) {
      await measure("floor GET", floors.get.url, () => ({ method: "GET", path: "/" }));
      await measure("floor POST", floors.post.url, floorPost);
      const set = await start(count);
      await measure(name("GET", count), set.url, getPage);
      await measure(name("POST", count), set.url, postLead);
      await set.stop();
    }
  }
  const median = (scenario: string) => medianOf(runs.get(scenario) ?? []);
  const floorGet = median("floor GET");
  const floorPostResult = median("floor POST");
  console.log(
    `${availableParallelism()} cores; autocannon, 32 connections, 5 s each, ${ROUNDS} alternating rounds (medians); ` +
      `NODE_ENV=production; pool ${POOL_SIZE} per set; a worker beside, delivering each new lead; counters in ` +
      `${process.env.REDIS_URL ? "Redis" : "PostgreSQL"}`,
  );
  report([floorGet, ...COUNTS.map((count) => median(name("GET", count)))]);
  report([floorPostResult, ...COUNTS.map((count) => median(name("POST", count)))]);
  const rows = COUNTS.map((count) => {
    const get = ratios(median(name("GET", count)), floorGet);
    const post = ratios(median(name("POST", count)), floorPostResult);
    const within = [get, post].every((each) => each.share >= TARGET.share && each.p99 <= TARGET.p99);
    return { count, get, post, within, throughput: get.share + post.share, p99: Math.max(get.p99, post.p99) };
  });
  console.table(
    rows.map((row) => ({
      "API processes": row.count,
      "GET % of floor": (row.get.share * 100).toFixed(1),
      "GET p99 ×": row.get.p99.toFixed(2),
      "POST % of floor": (row.post.share * 100).toFixed(1),
      "POST p99 ×": row.post.p99.toFixed(2),
      "within the targets": row.within ? "yes" : "no",
    })),
  );
  const within = rows.filter((row) => row.within).sort((a, b) => b.throughput - a.throughput);
  const best = within[0] ?? [...rows].sort((a, b) => a.p99 - b.p99)[0];
  console.log(
    `best: ${best?.count} API process(es) beside the worker on ${availableParallelism()} cores ` +
      `(${within.length > 0 ? "the most throughput within the targets" : "none within the targets: the lowest p99"})`,
  );
} finally {
  for (const child of children) child.kill("SIGKILL");
  await database.drop();
}
