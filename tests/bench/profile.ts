/**
 * Where the time of one /v1 request goes: runs the service (NODE_ENV=production, one process) under `--cpu-prof`,
 * loads `GET /v1/leads?limit=20` or `POST /v1/leads` with an Idempotency-Key (autocannon, 32 connections), stops
 * it, and prints the self time of the profile during the load (not the start-up) grouped by where the code lives (a package, a file of ours, or the
 * runtime), with the top functions.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:profile -- get|post [--keep]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { load } from "./load.ts";
import { benchServiceEnv } from "./service-env.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  /** Microseconds of CLOCK_MONOTONIC on Linux, the clock of process.hrtime in every process. */
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/<package>`, `server/src/<file>`, or the runtime's own (GC, native, idle). */
function owner(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const ours = /server\/dist\/(.+)\.js$/.exec(url);
  if (ours?.[1]) return `server/${ours[1]}`;
  if (url.startsWith("node:")) return url;
  return url;
}

/**
 * Sums the samples taken from `fromUs` on (the load after its warm-up, not the start-up): self time by owner and by
 * function, and inclusive time by owner.
 */
function summarise(profile: Profile, fromUs: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // The owner of each frame that has code (a url), once per node rather than once per sample and frame.
  const codeOwnerOf = new Map<number, string>();
  for (const node of profile.nodes) {
    if (node.callFrame.url) codeOwnerOf.set(node.id, owner(node.callFrame.url, node.callFrame.functionName));
  }
  const byOwner = new Map<string, number>();
  const byOwnerInclusive = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < fromUs || !node || node.callFrame.functionName === "(idle)") return;
    total += delta;
    const where = owner(node.callFrame.url, node.callFrame.functionName);
    byOwner.set(where, (byOwner.get(where) ?? 0) + delta);
    const fn = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
    // Inclusive: the sample counts once for every owner on its stack (a layer's cost with what it calls).
    const onStack = new Set<string>();
    for (let frame: number | undefined = id; frame !== undefined; frame = parentOf.get(frame)) {
      const frameOwner = codeOwnerOf.get(frame);
      if (frameOwner !== undefined) onStack.add(frameOwner);
    }
    for (const name of onStack) byOwnerInclusive.set(name, (byOwnerInclusive.get(name) ?? 0) + delta);
  });
  const top = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${name}`)
      .join("\n");
  console.log(`busy CPU time profiled: ${(total / 1e6).toFixed(1)} s (self time, idle excluded)`);
  console.log(`by where the code lives:\n${top(byOwner, 20)}`);
  console.log(`top functions:\n${top(byFunction, 20)}`);
  console.log(`by where the code lives, with what it calls (inclusive):\n${top(byOwnerInclusive, 30)}`);
}

const kind = process.argv[2] === "post" ? "post" : "get";
/** `--keep`: leave the .cpuprofile on disk (for Chrome DevTools or speedscope) and print its path. */
const keep = process.argv.includes("--keep");
const database = await benchDatabase();
const profileDir = mkdtempSync(join(tmpdir(), "service-profile-"));
try {
  const server = await runServer(
    ["api"],
    benchServiceEnv(database.url, {
      DB_POOL_MAX: "20",
      WEB_CONCURRENCY: "1",
      LOG_LEVEL: "info",
    }),
    120_000,
    ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, ...GC_FLAGS],
  );
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const { workspace_id: workspaceId } = await createWorkspace(pool, { name: "Profile", ownerEmail: "p@example.com" });
  const { key } = await createApiKey(pool, { workspaceId, name: "p", scopes: ["leads:read", "leads:write"] });
  await pool.query(
    `INSERT INTO leads (id, workspace_id, email, name, status, tags)
     SELECT 'lead_01JD' || lpad(upper(to_hex(g)), 22, '0'), $1, 'lead' || g || '@example.com', 'Lead ' || g, 'new', '{p}'
       FROM generate_series(1, 10000) AS g`,
    [workspaceId],
  );
  await pool.end();
  const auth = { authorization: `Bearer ${key}` };
  // load() warms up for 1 s first: the profile is read from the end of the warm-up.
  const measuredFromUs = Number(process.hrtime.bigint() / 1000n) + 1_200_000;
  const result = await load(
    kind === "get" ? "GET /v1/leads?limit=20" : "POST /v1/leads + Idempotency-Key",
    server.url,
    () =>
      kind === "get"
        ? { method: "GET", path: "/v1/leads?limit=20", headers: auth }
        : {
            method: "POST",
            path: "/v1/leads",
            headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
            body: JSON.stringify({ email: `p.${randomUUID()}@example.com`, name: "P", tags: ["p"] }),
          },
    { durationSeconds: 10, ...(server.child.pid ? { pid: server.child.pid } : {}) },
  );
  console.log(
    `${result.name}: ${result.perSecond} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
      `CPU ${result.cpuMsPerRequest} ms/req (under the profiler)`,
  );
  await server.stop("SIGTERM");
  const file = readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error("no profile written");
  summarise(JSON.parse(readFileSync(join(profileDir, file), "utf8")) as Profile, measuredFromUs);
  if (keep) console.log(`profile kept: ${join(profileDir, file)} (the load starts at ${measuredFromUs} µs)`);
} finally {
  if (!keep) rmSync(profileDir, { recursive: true, force: true });
  await database.drop();
}
