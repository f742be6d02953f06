/**
 * What a flood of refused requests costs one API process, on the machine's PostgreSQL and Redis, in one run:
 *   1. `POST /api/auth/forgot` from one client address, all 429 after its budget of 5 (the account limiter refuses
 *      from memory once over: no store round trip per refusal);
 *   2. `GET /v1/leads` without a key, all 401 (the cheapest refusal the service makes);
 *   3. `GET /v1/leads?limit=20` with a key, alone, then beside each flood (16 connections each): what /v1 keeps.
 * Prints each flood's req/s and the process's CPU per request, and their ratio (target: a refused account request
 * costs at most about 1.5× a 401).
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:refusals
 */
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { type LoadRequest, type LoadResult, load, report } from "./load.ts";
import { benchServiceEnv } from "./service-env.ts";

const database = await benchDatabase();
const server = await runServer(
  ["api"],
  benchServiceEnv(database.url, { TRUST_PROXY: "loopback", WEB_CONCURRENCY: "1" }),
  undefined,
  [...GC_FLAGS],
);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
try {
  const workspace = await createWorkspace(pool, { name: "bench", ownerEmail: "bench@example.com" });
  const { key } = await createApiKey(pool, { workspaceId: workspace.workspace_id, name: "b", scopes: ["leads:read"] });
  const pid = server.child.pid;
  const forgot = (): LoadRequest => ({
    method: "POST",
    path: "/api/auth/forgot",
    headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.9" },
    body: JSON.stringify({ email: "flood@example.com" }),
  });
  const anonymous = (): LoadRequest => ({ method: "GET", path: "/v1/leads" });
  const reads = (): LoadRequest => ({
    method: "GET",
    path: "/v1/leads?limit=20",
    headers: { authorization: `Bearer ${key}` },
  });
  const floods: LoadResult[] = [];
  floods.push(await load("POST /api/auth/forgot, one address (429)", server.url, forgot, { pid }));
  floods.push(await load("GET /v1/leads without a key (401)", server.url, anonymous, { pid }));
  const beside = async (name: string, make: () => LoadRequest) => {
    const [measured] = await Promise.all([
      load(`GET /v1/leads with a key, beside ${name}`, server.url, reads, { connections: 16 }),
      load(name, server.url, make, { connections: 16 }),
    ]);
    return measured;
  };
  const alone = await load("GET /v1/leads with a key, alone", server.url, reads, { connections: 16 });
  const underForgot = await beside("the forgot flood", forgot);
  const underAnonymous = await beside("the 401 flood", anonymous);

  console.log("autocannon, 5 s each after 1 s of warm-up; one API process (NODE_ENV=production), REDIS_URL as given");
  report(floods);
  const [refused, unauthenticated] = floods as [LoadResult, LoadResult];
  const cost = (refused.cpuMsPerRequest ?? 0) / (unauthenticated.cpuMsPerRequest ?? 1);
  console.log(
    `a refused forgot costs ${cost.toFixed(2)}× a 401 in CPU (target ≤ 1.5×: ${cost <= 1.5 ? "PASS" : "MISS"}); ` +
      `${refused.perSecond} against ${unauthenticated.perSecond} req/s`,
  );
  report([alone, underForgot, underAnonymous], alone);
} finally {
  await pool.end();
  await server.stop("SIGKILL");
  await database.drop();
}
