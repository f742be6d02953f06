/**
 * Redis through Sentinel, its primary killed: Sentinel promotes the replica, `/v1` keeps answering meanwhile (its
 * request budget counts in PostgreSQL while no primary answers), and the budget then counts in the new primary. A
 * private primary, replica and sentinel (Debian's redis-server, the sentinel being `redis-server --sentinel`).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import {
  type PrivateRedis,
  redisServerBinary,
  startPrivateRedis,
  startPrivateSentinel,
} from "../helpers/private-redis.ts";
import { useTestService } from "../helpers/service.ts";

const runnable = Boolean(redisServerBinary()) || process.env.CI === "true";
if (!runnable) console.warn("skipping the Redis Sentinel test: install redis-server (apt-get install redis-server)");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!runnable)("Redis Sentinel failing over under the API", () => {
  let primary: PrivateRedis;
  let replica: PrivateRedis;
  let sentinel: PrivateRedis;
  const sentinelPort = { value: 0 };

  beforeAll(async () => {
    primary = await startPrivateRedis();
    replica = await startPrivateRedis({ args: ["--replicaof", "127.0.0.1", String(primary.port)] });
    sentinel = await startPrivateSentinel(primary);
    sentinelPort.value = sentinel.port;
  }, 30_000);

  afterAll(async () => {
    await Promise.all([sentinel?.stop(), replica?.stop(), primary?.stop()]);
  });

  const service = useTestService({
    REDIS_URL: "",
    get REDIS_SENTINELS() {
      return `127.0.0.1:${sentinelPort.value}`;
    },
    REDIS_SENTINEL_NAME: "primary",
    REDIS_COMMAND_TIMEOUT_MS: "300",
    API_RATE_LIMIT_PER_MINUTE: "1000",
  } as Record<string, string>);

  it("keeps answering through the failover, then counts the budget in the new primary", {
    timeout: 60_000,
  }, async () => {
    const { key } = await workspaceWithKey(service(), ["leads:read"]);
    const call = async () => {
      const started = performance.now();
      const response = await service().fetch("/v1/leads", { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started, limit: response.headers.get("ratelimit") };
    };
    for (let i = 0; i < 5; i++) expect((await call()).status).toBe(200);
    const counted = async (redis: PrivateRedis) => {
      const client = new Redis(redis.port, "127.0.0.1");
      try {
        return (await client.keys("*api-key*")).length;
      } finally {
        client.disconnect();
      }
    };
    expect(await counted(primary)).toBe(1);

    await primary.kill();
    const during: { status: number; ms: number }[] = [];
    const promoted = async () => {
      const client = new Redis(replica.port, "127.0.0.1");
      try {
        return String(await client.info("replication")).includes("role:master");
      } finally {
        client.disconnect();
      }
    };
    const deadline = Date.now() + 30_000;
    while (!(await promoted()) && Date.now() < deadline) {
      during.push(await call());
      await sleep(50);
    }
    expect(await promoted()).toBe(true);
    // Until the service reconnects to the new primary, and after.
    for (let i = 0; i < 40; i++) {
      during.push(await call());
      await sleep(50);
    }
    expect(during.filter((answer) => answer.status !== 200)).toEqual([]);
    const sorted = during.map((answer) => answer.ms).sort((a, b) => a - b);
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? 0;
    console.log(`failover: ${during.length} calls, p99 ${p99.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`);
    expect(p99).toBeLessThan(1_000);
    // The budget counts in the new primary (once the service has reconnected to it): a call, a point there.
    const client = new Redis(replica.port, "127.0.0.1");
    const points = async () => {
      const names = await client.keys("*api-key*");
      return names.length === 1 ? Number(await client.get(names[0] as string)) : -names.length;
    };
    try {
      const reconnected = Date.now();
      let moved = false;
      while (!moved && Date.now() - reconnected < 15_000) {
        const before = await points();
        expect((await call()).status).toBe(200);
        moved = (await points()) === before + 1;
        if (!moved) await sleep(200);
      }
      console.log(`counting in the new primary ${Date.now() - reconnected} ms after its promotion was seen`);
      expect(moved).toBe(true);
    } finally {
      client.disconnect();
    }
  });
});
