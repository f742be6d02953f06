/**
 * The service's Redis connection, as a process starts it: the client (redis-client.ts) with the options that keep a
 * request from waiting on Redis, a log line when it fails and when it comes back, and a bounded wait for it to be ready.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { redisClient } from "./redis-client.ts";

export interface RedisConnection {
  readonly client: Redis;
  /** Closes the connection (what it says then is not an outage). */
  stop(): void;
}

type RedisConfig = Pick<Config, "redisUrl" | "redisSentinels" | "redisSentinelName" | "redisCommandTimeoutMs">;

async function ready(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === "ready") return true;
  let timer: NodeJS.Timeout | undefined;
  const isReady = await Promise.race([
    // Not events.once: it would give up at the first connection error, and ioredis keeps retrying.
    new Promise<boolean>((resolve) => redis.once("ready", () => resolve(true))),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return isReady;
}

/** undefined when the service uses no Redis. */
export async function connectRedis(config: RedisConfig, logger: Logger): Promise<RedisConnection | undefined> {
  const client = redisClient(config, {
    // Fail fast instead of queueing commands while Redis is down (rate-limiter-flexible's advice), and give
    // up on a command that a hung Redis does not answer: the limiters then count in PostgreSQL.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A backstop only: the limiters and the readiness check apply REDIS_COMMAND_TIMEOUT_MS themselves, with a
    // deadline that a busy event loop cannot trip (lib/deadline.ts); this one would fire first under load.
    commandTimeout: 10 * config.redisCommandTimeoutMs,
    connectTimeout: Math.max(1_000, config.redisCommandTimeoutMs),
    lazyConnect: false,
    // Commands issued in the same tick go out in one write and their replies come back in one read: under
    // load, the budget checks of concurrent requests share a round trip instead of a syscall each.
    enableAutoPipelining: true,
  });
  if (!client) return undefined;
  let errorLogged = false;
  // A connection closed without an error (a failover that Sentinel announced before the socket failed) is down too.
  let down = false;
  let stopping = false;
  client.on("error", (error) => {
    if (!errorLogged) logger.warn({ err: error.message }, "redis error");
    errorLogged = true;
    down = true;
  });
  client.on("close", () => {
    if (!stopping) down = true;
  });
  client.on("ready", () => {
    if (down) logger.info("redis connection restored");
    down = false;
    errorLogged = false;
  });

  // Until its Redis connection is ready, a process counts request budgets in PostgreSQL while the others count in
  // Redis, and a budget would be split between two stores: the process waits for it (bounded; a Redis that is down
  // stays the insurance's case).
  if (!(await ready(client, Math.max(1_000, config.redisCommandTimeoutMs) * 2))) {
    logger.warn("redis is not ready: counting in PostgreSQL until it is");
  }
  return {
    client,
    stop() {
      stopping = true;
      client.disconnect();
    },
  };
}
