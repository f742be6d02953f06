/**
 * The service's Redis connection says when it is lost and when it is back, also when the connection closes without an
 * error (Redis closes it, or Sentinel announces a failover before the socket fails): the operator's log, and the fleet
 * test's signal that each API host counts in Redis again.
 */
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../server/src/config.ts";
import { connectRedis, type RedisConnection } from "../../server/src/db/connect-redis.ts";
import { type PrivateRedis, redisServerBinary, startPrivateRedis } from "../helpers/private-redis.ts";

const runnable = Boolean(redisServerBinary()) || process.env.CI === "true";
if (!runnable) console.warn("skipping the Redis connection test: install redis-server (apt-get install redis-server)");

describe.skipIf(!runnable)("the service's Redis connection", () => {
  let server: PrivateRedis;
  let connection: RedisConnection | undefined;
  const lines: { msg: string }[] = [];
  beforeAll(async () => {
    server = await startPrivateRedis();
    const config = loadConfig({ NODE_ENV: "test", REDIS_URL: `redis://127.0.0.1:${server.port}` });
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    connection = await connectRedis(config, logger);
  });
  afterAll(async () => {
    connection?.stop();
    await server?.stop();
  });

  it("logs that it is restored after Redis closed it without an error", async () => {
    const client = connection?.client;
    expect(client?.status).toBe("ready");
    const id = await client?.client("ID");
    const admin = new Redis(server.port, "127.0.0.1");
    try {
      expect(await admin.client("KILL", "ID", String(id))).toBe(1);
    } finally {
      admin.disconnect();
    }
    await vi.waitFor(() => expect(lines.map((line) => line.msg)).toContain("redis connection restored"), {
      timeout: 5_000,
    });
    expect(client?.status).toBe("ready");
  });

  it("says nothing when it is stopped", async () => {
    const before = lines.length;
    connection?.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines.slice(before)).toEqual([]);
  });
});
