/**
 * The /v1 API against its floors, in one run on the machine's PostgreSQL and Redis (10,000 leads in the workspace),
 * every server in its own process, each loaded by autocannon (32 connections, 5 s, after a 3 s warm-up: the service's
 * JIT needs about that to reach its steady state). The floors and the service alternate in 3 rounds, and each figure
 * is the median of its rounds, so that the drift of a shared machine's speed reaches both sides of a ratio:
 *
 *   node:http hello, Express 5 hello   the ceilings of a Node server on this machine
 *   floor GET    node:http + pg (same pool size): the same page query, a JSON list
 *   floor POST   node:http + pg: BEGIN, insert the lead, insert its event into an outbox, COMMIT, then wait for a pass
 *                shared by every write that committed meanwhile, which numbers the events in one statement: the least
 *                the contract's change stream needs (a write's 2xx means its events are listed)
 *   the service  GET /v1/leads?limit=20, POST /v1/leads with an Idempotency-Key, as `npm start` runs it in production
 *                (`start`: the cluster's primary, its default API processes and the worker beside them, the default
 *                pool), and as one API process (`api`, WEB_CONCURRENCY=1, where CPU time per request is measured)
 *
 * Prints req/s, p50, p99, the CPU time per request of the floors' and the service's API process and of the machine's
 * PostgreSQL and Redis processes, then the service's ratios to its floors, with the targets of issue 40 for `npm
 * start`: GET ≥ 75 % and POST ≥ 70 % of their floors' req/s, each with p99 ≤ 1.5 × the floor's.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:api
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { CLUSTER_ROLE_ENV } from "../../server/src/cluster-env.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { type LoadRequest, type LoadResult, load, report } from "./load.ts";
import { benchWorkspace, floorServer, medianOf, ratio, ratios, WARM_UP } from "./rounds.ts";
import { benchServiceEnv } from "./service-env.ts";

const POOL_SIZE = "20";
const ROUNDS = 3;
/** Issue 40's targets for `npm start`: each share of its floor's req/s at least this, its p99 at most 1.5 × the floor's. */
const TARGETS = { get: 0.75, post: 0.7, p99: 1.5 };

/** The API process that a cluster's primary forked (Linux /proc: its children, and the role each was given). */
function apiProcessOf(primary: number): number {
  const children = readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8").trim().split(/\s+/);
  const api = children.map(Number).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`${CLUSTER_ROLE_ENV}=api`);
    } catch {
      return false; // ended meanwhile
    }
  });
  if (api === undefined) throw new Error("no API process under the cluster's primary");
  return api;
}

const database = await benchDatabase();
const children: ChildProcess[] = [];
try {
  // As `npm start` runs in production: every default (processes, pool, log level), the machine's stores.
  const started = await runServer(["start"], benchServiceEnv(database.url));
  children.push(started.child);
  // One process, started as the README says a single process is (the cluster gives its processes the flag itself).
  const single = await runServer(
    ["api"],
    benchServiceEnv(database.url, { DB_POOL_MAX: POOL_SIZE, WEB_CONCURRENCY: "1" }),
    undefined,
    [...GC_FLAGS],
  );
  children.push(single.child);
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
  const floorPostRequest = () => ({
    method: "POST" as const,
    path: "/",
    headers: { "content-type": "application/json" },
    body: newLead(),
  });
  const hello = () => ({ method: "GET" as const, path: "/" });

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
  const names = {
    floorGet: "floor GET",
    get: "GET /v1/leads?limit=20, npm start",
    singleGet: "GET /v1/leads, one process",
    floorPost: "floor POST (outbox, shared pass)",
    post: "POST /v1/leads + Idempotency-Key, npm start",
    singlePost: "POST /v1/leads, one process",
  };
  for (let round = 0; round < ROUNDS; round++) {
    await measure(names.floorGet, floors.get.url, hello, round, floors.get.child.pid);
    await measure(names.get, started.url, getPage, round, apiProcessOf(started.child.pid as number));
    await measure(names.singleGet, single.url, getPage, round, single.child.pid);
    await measure(names.floorPost, floors.post.url, floorPostRequest, round, floors.post.child.pid);
    await measure(names.post, started.url, postLead, round, apiProcessOf(started.child.pid as number));
    await measure(names.singlePost, single.url, postLead, round, single.child.pid);
  }
  const median = (name: string) => medianOf(runs.get(name) ?? []);
  const floorGet = median(names.floorGet);
  const floorPost = median(names.floorPost);
  const [get, singleGet, post, singlePost] = [names.get, names.singleGet, names.post, names.singlePost].map(median);

  console.log(
    `autocannon, 32 connections, 5 s each, ${ROUNDS} alternating rounds (medians shown); NODE_ENV=production; ` +
      `floors' pool ${POOL_SIZE}; counters in ${process.env.REDIS_URL ? "Redis" : "PostgreSQL"}; 10,000 leads`,
  );
  report([httpHello, expressHello, floorGet, get, singleGet, floorPost, post, singlePost] as LoadResult[]);
  const verdict = (service: LoadResult, floor: LoadResult, share: number) => {
    const measured = ratios(service, floor);
    const pass = measured.share >= share && measured.p99 <= TARGETS.p99;
    return `${ratio(service, floor)}: ${pass ? "PASS" : "MISS"} (≥ ${share * 100} %, p99 ≤ ${TARGETS.p99} ×)`;
  };
  console.log(verdict(get as LoadResult, floorGet, TARGETS.get));
  console.log(verdict(post as LoadResult, floorPost, TARGETS.post));
  console.log(ratio(singleGet as LoadResult, floorGet));
  console.log(ratio(singlePost as LoadResult, floorPost));
} finally {
  // The cluster's primary stops its processes on SIGTERM; a SIGKILL would leave them behind.
  children[0]?.kill("SIGTERM");
  for (const child of children.slice(1)) child.kill("SIGKILL");
  await database.drop();
}
