/**
 * Benchmark: POST /api/auth/forgot (two limiter checks and a job enqueue) with counters in PostgreSQL and in
 * Redis, against GET /health in the same run. Needs DATABASE_URL (REDIS_URL for the Redis store):
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:auth-limits
 */
import { randomBytes } from "node:crypto";
import { bareEnv, runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { type LoadResult, load, report } from "./load.ts";

async function withDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const database = await benchDatabase();
  try {
    return await run(database.url);
  } finally {
    await database.drop();
  }
}

let n = 0;
/** Each request from its own client address and for its own e-mail: every one passes both limiters. */
const forgot = () => {
  n += 1;
  return {
    method: "POST" as const,
    path: "/api/auth/forgot",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `198.51.${(n >> 8) & 255}.${n & 255}`,
    },
    body: JSON.stringify({ email: `bench.${n}@example.com` }),
  };
};

const stores = [
  { store: "postgres", redisUrl: "" },
  ...(process.env.REDIS_URL ? [{ store: "redis", redisUrl: process.env.REDIS_URL }] : []),
];
const results: LoadResult[] = [];
let health: LoadResult | undefined;
for (const { store, redisUrl } of stores) {
  await withDatabase(async (url) => {
    // The built server in its own process, API role only (a worker would compete for the same two cores).
    const server = await runServer(
      ["api"],
      bareEnv({
        NODE_ENV: "production",
        PORT: "0",
        DATABASE_URL: url,
        REDIS_URL: redisUrl,
        TRUST_PROXY: "loopback",
        RATE_LIMIT_KEY_PREFIX: `bench-${randomBytes(3).toString("hex")}`,
        LOG_LEVEL: "info",
      }),
    );
    try {
      const base = server.url;
      health ??= await load("GET /health", base, () => ({ method: "GET", path: "/health" }));
      results.push(await load(`POST /api/auth/forgot (${store})`, base, forgot));
    } finally {
      await server.stop();
    }
  });
}
console.log("32 connections, 3 s each, NODE_ENV=production (no response validation)");
report([health as LoadResult, ...results], health as LoadResult);
