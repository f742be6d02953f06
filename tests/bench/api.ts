/**
 * The /v1 API against its floors, in one run on the machine's PostgreSQL and Redis (10,000 leads in the
 * workspace), every server in its own process, each loaded by autocannon (32 connections, 5 s, after a 3 s warm-up: the
 * service's JIT needs about that to reach its steady state). The floors and the service alternate in 3 rounds, and
 * each figure is the median of its rounds, so that the drift of a shared machine's speed reaches both sides of a ratio:
 *
 *   node:http hello, Express 5 hello                the ceilings of a Node server on this machine
 *   floor GET   node:http + pg (same pool size), the same page query, a JSON list
 *   floor POST  node:http + pg: BEGIN, insert the lead, insert its event, COMMIT
 *   the service (NODE_ENV=production): GET /v1/leads?limit=20, POST /v1/leads with an Idempotency-Key, with one
 *   API process (WEB_CONCURRENCY=1, where CPU time per request is measured) and with two (WEB_CONCURRENCY=2)
 *
 * Prints req/s, p50, p99, the CPU time per request of the floors' and the service's process and of the machine's
 * PostgreSQL and Redis processes, then the service's ratios to its floors.
 * Targets (issue 24, with Express and express-openapi-validator on the path): each ≥ 55 % of its floor's req/s, p99
 * ≤ 2 × the floor's p99.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:api
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { type LoadRequest, type LoadResult, load, report } from "./load.ts";
import { benchWorkspace, floorServer, medianOf, ratio, WARM_UP } from "./rounds.ts";
import { benchServiceEnv } from "./service-env.ts";

const POOL_SIZE = "20";
const ROUNDS = 3;
const database = await benchDatabase();
const children: ChildProcess[] = [];
try {
  const serviceEnv = (processes: number) =>
    benchServiceEnv(database.url, {
      DB_POOL_MAX: POOL_SIZE,
      WEB_CONCURRENCY: String(processes),
      LOG_LEVEL: "info",
    });
  // One process, started as the README says a single process is (the cluster gives its processes the flag itself).
  const server = await runServer(["api"], serviceEnv(1), undefined, [...GC_FLAGS]);
  children.push(server.child);
  const { workspaceId, key } = await benchWorkspace(database.url);

  const floors = {
    http: await floorServer("hello-http"),
    express: await floorServer("hello-express"),
    get: await floorServer("get", database.url, workspaceId, POOL_SIZE),
    post: await floorServer("post", database.url, workspaceId, POOL_SIZE),
  };
  children.push(...Object.values(floors).map((floor) => floor.child));

  const auth = { authorization: `Bearer ${key}` };
  const newLead = () => JSON.stringify({ email: `new.${randomUUID()}@example.com`, name: "Bench", tags: ["bench"] });
  const getPage = () => ({ method: "GET" as const, path: "/v1/leads?limit=20", headers: auth });
  const postLead = () => ({
    method: "POST" as const,
    path: "/v1/leads",
    headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
    body: newLead(),
  });
  const hello = () => ({ method: "GET" as const, path: "/" });
  const pid = server.child.pid;

  const floorPostRequest = () => ({
    method: "POST" as const,
    path: "/",
    headers: { "content-type": "application/json" },
    body: newLead(),
  });
  const two = await runServer(["api"], serviceEnv(2));
  children.push(two.child);
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the second process

  const httpHello = await load("node:http hello", floors.http.url, hello, WARM_UP);
  const expressHello = await load("Express 5 hello", floors.express.url, hello, WARM_UP);
  // Rounds that alternate each floor with the service, so that a drift of this shared machine's speed reaches both
  // sides of a ratio alike; each figure is the median of its rounds. The first round warms up longer.
  const runs = new Map<string, LoadResult[]>();
  const measure = async (name: string, url: string, make: () => LoadRequest, round: number, measuredPid?: number) => {
    const result = await load(name, url, make, {
      warmUpSeconds: round === 0 ? WARM_UP.warmUpSeconds : 1,
      ...(measuredPid ? { pid: measuredPid } : {}),
    });
    runs.set(name, [...(runs.get(name) ?? []), result]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await measure("floor GET", floors.get.url, () => ({ method: "GET", path: "/" }), round, floors.get.child.pid);
    await measure("GET /v1/leads?limit=20", server.url, getPage, round, pid);
    await measure("GET /v1/leads, 2 processes", two.url, getPage, round);
    await measure("floor POST", floors.post.url, floorPostRequest, round, floors.post.child.pid);
    await measure("POST /v1/leads + Idempotency-Key", server.url, postLead, round, pid);
    await measure("POST /v1/leads, 2 processes", two.url, postLead, round);
  }
  const median = (name: string) => medianOf(runs.get(name) ?? []);
  const floorGet = median("floor GET");
  const serviceGet = median("GET /v1/leads?limit=20");
  const twoGet = median("GET /v1/leads, 2 processes");
  const floorPost = median("floor POST");
  const servicePost = median("POST /v1/leads + Idempotency-Key");
  const twoPost = median("POST /v1/leads, 2 processes");

  console.log(
    `autocannon, 32 connections, 5 s each, ${ROUNDS} alternating rounds (medians shown); NODE_ENV=production; ` +
      `pool ${POOL_SIZE}; ` +
      `counters in ${process.env.REDIS_URL ? "Redis" : "PostgreSQL"}; 10,000 leads`,
  );
  report([httpHello, expressHello, floorGet, serviceGet, twoGet, floorPost, servicePost, twoPost]);
  console.log(ratio(serviceGet, floorGet));
  console.log(ratio(twoGet, floorGet));
  console.log(ratio(servicePost, floorPost));
  console.log(ratio(twoPost, floorPost));
} finally {
  for (const child of children) child.kill("SIGKILL");
  await database.drop();
}
