/**
 * The service's Redis connection says when it is lost and when it is back, also when the connection closes without an
 * error (Redis closes it, or Sentinel announces a failover before the socket fails): the operator's log, and the fleet
 * test's signal that each API host counts in Redis again. Through Sentinel, it comes back from a failover announced while
 * it was already reconnecting, and past a sentinel that does not answer.
 */
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../server/src/config.ts";
import { connectRedis, type RedisConnection } from "../../server/src/db/connect-redis.ts";
import {
  type PrivateRedis,
  redisServerBinary,
  startPrivateRedis,
  startPrivateSentinel,
} from "../helpers/private-redis.ts";

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

describe.skipIf(!runnable)("the service's Redis connection through Sentinel", () => {
  let primary: PrivateRedis;
  let replica: PrivateRedis;
  let sentinels: PrivateRedis[];
  const opened: RedisConnection[] = [];
  beforeAll(async () => {
    primary = await startPrivateRedis();
    replica = await startPrivateRedis({ args: ["--replicaof", "127.0.0.1", String(primary.port)] });
    sentinels = [await startPrivateSentinel(primary), await startPrivateSentinel(primary)];
  }, 30_000);
  afterAll(async () => {
    for (const connection of opened) connection.stop();
    await Promise.all([...(sentinels ?? []), replica, primary].map((server) => server?.stop()));
  });

  /** The service's connection through both sentinels (the first asked first), and its log's messages. */
  const connect = async (commandTimeoutMs: number) => {
    const config = loadConfig({
      NODE_ENV: "test",
      REDIS_SENTINELS: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(","),
      REDIS_SENTINEL_NAME: "primary",
      REDIS_COMMAND_TIMEOUT_MS: String(commandTimeoutMs),
    });
    const said: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void said.push(JSON.parse(line).msg) });
    const connection = await connectRedis(config, logger);
    if (!connection) throw new Error("no Redis connection");
    opened.push(connection);
    expect(connection.client.status).toBe("ready");
    return { client: connection.client, said };
  };
  /** Closes the client's connection from the server's side, as a primary going away does. */
  const cut = async (client: Redis) => {
    const [, port] = (await client.call("CONFIG", "GET", "port")) as [string, string];
    const id = await client.client("ID");
    const admin = new Redis(Number(port), "127.0.0.1");
    try {
      expect(await admin.client("KILL", "ID", String(id))).toBe(1);
    } finally {
      admin.disconnect();
    }
  };
  const answers = async (server: PrivateRedis, ...command: [string, ...string[]]) => {
    const client = new Redis(server.port, "127.0.0.1");
    try {
      return await client.call(...command);
    } finally {
      client.disconnect();
    }
  };

  it("reconnects when the failover is announced while it asks a sentinel for the primary (patches/ioredis)", {
    timeout: 60_000,
  }, async () => {
    // A sentinel answers within 10 s: long enough for the failover below to happen while the first one is frozen.
    const { client, said } = await connect(10_000);
    const [first, second] = sentinels as [PrivateRedis, PrivateRedis];
    // Its failover detector listens for +switch-master on both sentinels.
    await vi.waitFor(
      async () => expect(String(await answers(second, "CLIENT", "LIST"))).toMatch(/ sub=1 .*cmd=subscribe/),
      { timeout: 5_000 },
    );
    first.freeze();
    try {
      await cut(client);
      // Reconnecting: it asks the first sentinel, which does not answer yet.
      await vi.waitFor(() => expect(client.status).toBe("connecting"), { timeout: 5_000 });
      await answers(second, "SENTINEL", "FAILOVER", "primary");
      await vi.waitFor(
        async () =>
          expect(await answers(second, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "primary")).toEqual([
            "127.0.0.1",
            String(replica.port),
          ]),
        { timeout: 20_000, interval: 100 },
      );
      // The +switch-master message reaches the client's detector.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      first.thaw();
    }
    // Without the patch, the old connection's detector aborted the attempt in progress and the client ended.
    await vi.waitFor(() => expect(said).toContain("redis connection restored"), { timeout: 20_000, interval: 100 });
    expect(client.status).toBe("ready");
    expect(await client.ping()).toBe("PONG");
  });

  it("skips a sentinel that does not answer", { timeout: 30_000 }, async () => {
    const { client, said } = await connect(1_000);
    const [first] = sentinels as [PrivateRedis, PrivateRedis];
    first.freeze();
    try {
      await cut(client);
      // After REDIS_COMMAND_TIMEOUT_MS (at least 1 s) it asks the second sentinel.
      await vi.waitFor(() => expect(said).toContain("redis connection restored"), { timeout: 10_000, interval: 100 });
    } finally {
      first.thaw();
    }
    expect(client.status).toBe("ready");
  });
});
