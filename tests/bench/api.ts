/**
 * Benchmark of the /v1 API on the machine's PostgreSQL and Redis, in one run:
 *   - a bare node:http hello server and a minimal Express 5 hello route (the ceilings),
 *   - GET /v1/leads (a page of 20 out of 10,000 leads) and POST /v1/leads with an Idempotency-Key,
 * each server in its own process, 32 keep-alive connections, 3 s per scenario. Prints req/s, p50, p99 and the
 * ratios to the Express hello route. Targets: GET ≥ 35 %, POST ≥ 15 %, p99 under 25 ms.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:api
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { bareEnv, runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { type LoadResult, load, report } from "./load.ts";

const HELLO_HTTP = `import { createServer } from "node:http";
const server = createServer((req, res) => { res.setHeader("content-type", "application/json"); res.end('{"hello":"world"}'); });
server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
const HELLO_EXPRESS = `import express from "express";
const app = express();
app.get("/", (req, res) => { res.json({ hello: "world" }); });
const server = app.listen(0, "127.0.0.1", () => console.log(server.address().port));`;

async function helloServer(source: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
    cwd: "server",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

const database = await benchDatabase();

const children: ChildProcess[] = [];
try {
  const server = await runServer(
    ["api"],
    bareEnv({
      NODE_ENV: "production",
      PORT: "0",
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL ?? "",
      API_RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "info",
    }),
  );
  children.push(server.child);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const workspace = await createWorkspace(pool, { name: "Bench", ownerEmail: "bench@example.com" });
  const { key } = await createApiKey(pool, {
    workspaceId: workspace.workspace_id,
    name: "bench",
    scopes: ["leads:read", "leads:write"],
  });
  // 10,000 leads with ULID-shaped, time-ordered ids.
  await pool.query(
    `INSERT INTO leads (id, workspace_id, email, name, status, tags)
     SELECT 'lead_01JD' || lpad(upper(to_hex(g)), 22, '0'), $1, 'lead' || g || '@example.com', 'Lead ' || g, 'new', '{bench}'
       FROM generate_series(1, 10000) AS g`,
    [workspace.workspace_id],
  );
  await pool.query("ANALYZE leads");
  await pool.end();

  const http = await helloServer(HELLO_HTTP);
  const express = await helloServer(HELLO_EXPRESS);
  children.push(http.child, express.child);

  const auth = { authorization: `Bearer ${key}` };
  const results: LoadResult[] = [];
  results.push(await load("node:http hello", http.url, () => ({ method: "GET", path: "/" })));
  const expressHello = await load("Express 5 hello", express.url, () => ({ method: "GET", path: "/" }));
  results.push(expressHello);
  results.push(
    await load("GET /v1/leads (20 of 10,000)", server.url, () => ({
      method: "GET",
      path: "/v1/leads?limit=20",
      headers: auth,
    })),
  );
  results.push(
    await load("POST /v1/leads + Idempotency-Key", server.url, () => ({
      method: "POST",
      path: "/v1/leads",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ email: `new.${randomUUID()}@example.com`, name: "Bench", tags: ["bench"] }),
    })),
  );
  console.log(
    `32 connections, 3 s each; server NODE_ENV=production; counters in ${process.env.REDIS_URL ? "Redis" : "PostgreSQL"}`,
  );
  report(results, expressHello);
} finally {
  for (const child of children) child.kill("SIGKILL");
  await database.drop();
}
