/**
 * What the account limits cost, before and after they moved to PostgreSQL (issue 25), in one run on the machine's
 * PostgreSQL and Redis:
 *
 *   1. end to end: `POST /api/auth/forgot` (its two limiters and an e-mail job) against `GET /health`, the built
 *      service in its own process with `REDIS_URL` set, each request from its own address for its own e-mail;
 *   2. the check alone, 32 callers at once in this process: the forgot chain (`forgot-ip`, `forgot-email`) counted in
 *      Redis as before (rate-limiter-flexible's RateLimiterRedis, what every account limiter did with `REDIS_URL` set)
 *      and in PostgreSQL as now (the service's own `createLimiters`), with the CPU the stores spent per check.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:auth-limits
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import pino from "pino";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { loadConfig } from "../../server/src/config.ts";
import { createLimiters } from "../../server/src/rate-limit/limiters.ts";
import { LIMIT_CHAINS, LIMIT_RULES } from "../../server/src/rate-limit/policy.ts";
import { bareEnv, runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { cpuSpent, type LoadResult, load, report, storesCpu } from "./load.ts";

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  console.error("Set REDIS_URL too: the comparison is with the account limits counted in Redis.");
  process.exit(2);
}
const prefix = `bench-${randomBytes(3).toString("hex")}`;
const database = await benchDatabase();
try {
  // 1. End to end, the built server in its own process, API role only (a worker would compete for the two cores).
  const server = await runServer(
    ["api"],
    bareEnv({
      NODE_ENV: "production",
      PORT: "0",
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      TRUST_PROXY: "loopback",
      RATE_LIMIT_KEY_PREFIX: prefix,
      LOG_LEVEL: "info",
      // One process, whose CPU time per request is measured.
      WEB_CONCURRENCY: "1",
    }),
  );
  let n = 0;
  const results: LoadResult[] = [];
  try {
    const pid = server.child.pid;
    results.push(await load("GET /health", server.url, () => ({ method: "GET", path: "/health" }), { pid }));
    results.push(
      await load(
        "POST /api/auth/forgot",
        server.url,
        () => {
          n += 1;
          return {
            method: "POST",
            path: "/api/auth/forgot",
            headers: { "content-type": "application/json", "x-forwarded-for": `198.51.${(n >> 8) & 255}.${n & 255}` },
            body: JSON.stringify({ email: `bench.${n}@example.com` }),
          };
        },
        { pid },
      ),
    );
  } finally {
    await server.stop();
  }
  console.log("1. end to end: autocannon, 32 connections, 5 s each, NODE_ENV=production, REDIS_URL set");
  report(results, results[0]);

  // 2. The forgot chain's check alone: before (Redis) and after (PostgreSQL), side by side.
  const pool = new pg.Pool({ connectionString: database.url, max: 20 });
  pool.on("error", () => undefined); // the database is dropped at the end
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const logger = pino({ level: "silent" });
  const config = loadConfig({ ...process.env, DATABASE_URL: database.url, RATE_LIMIT_KEY_PREFIX: prefix });
  const after = createLimiters({ redis, pool, config, logger });
  const before = LIMIT_CHAINS.forgot.map(
    (name) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:before:${name}`,
        points: LIMIT_RULES[name].points,
        duration: LIMIT_RULES[name].durationSeconds,
      }),
  );
  let k = 0;
  const checks = {
    "forgot chain in Redis (before)": async () => {
      k += 1;
      const key = `key-${k}`;
      for (const limiter of before) await limiter.consume(key);
    },
    "forgot chain in PostgreSQL (now)": async () => {
      k += 1;
      const key = `key-${k}`;
      const decision = await after.consume(LIMIT_CHAINS.forgot, () => key);
      if (decision.outcome !== "allow") throw new Error(`unexpected ${decision.outcome}`);
    },
  };
  const rows = [];
  try {
    for (const [name, check] of Object.entries(checks)) {
      rows.push({ scenario: name, ...(await measure(check)) });
    }
  } finally {
    redis.disconnect();
    await pool.end();
  }
  console.log("2. the check alone: 32 callers at once, 3 s after a 1 s warm-up, in this process");
  console.table(rows);
} finally {
  await database.drop();
}

/** Checks per second, latency and CPU (this process's, and the machine's PostgreSQL and Redis) per check. */
async function measure(check: () => Promise<void>) {
  const run = async (ms: number) => {
    const latencies: number[] = [];
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() < end) {
          const started = performance.now();
          await check();
          latencies.push(performance.now() - started);
        }
      }),
    );
    return latencies;
  };
  await run(1_000);
  const stores = storesCpu();
  const cpu = process.cpuUsage();
  const latencies = (await run(3_000)).sort((a, b) => a - b);
  const spent = process.cpuUsage(cpu);
  const count = latencies.length;
  const at = (q: number) => (latencies[Math.min(count - 1, Math.floor(count * q))] ?? 0).toFixed(1);
  return {
    "checks/s": Math.round(count / 3),
    "p50 ms": at(0.5),
    "p99 ms": at(0.99),
    "bench CPU ms/check": Math.round(((spent.user + spent.system) / 1000 / count) * 1000) / 1000,
    "PG+Redis CPU ms/check": Math.round((cpuSpent(stores, storesCpu()) / count) * 1000) / 1000,
  };
}
