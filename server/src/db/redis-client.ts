/**
 * The service's Redis connection: `REDIS_URL`, or the primary that Redis Sentinel names (`REDIS_SENTINELS`,
 * `REDIS_SENTINEL_NAME`, with REDIS_URL's credentials and database when both are set), through ioredis's own Sentinel
 * support. After a failover the sentinels name the new primary and ioredis reconnects to it (`failoverDetector`
 * hears the sentinels' `+switch-master` rather than waiting for the old connection to fail); meanwhile a command
 * fails fast and the request budgets count in PostgreSQL (rate-limit/limiters.ts).
 */
import { Redis, type RedisOptions } from "ioredis";
import type { Config } from "../config.ts";

/** undefined when the service uses no Redis. */
export function redisClient(
  config: Pick<Config, "redisUrl" | "redisSentinels" | "redisSentinelName" | "redisCommandTimeoutMs">,
  options: RedisOptions,
): Redis | undefined {
  if (config.redisSentinels) {
    const url = config.redisUrl ? new URL(config.redisUrl) : undefined;
    return new Redis({
      ...options,
      sentinels: [...config.redisSentinels],
      name: config.redisSentinelName,
      failoverDetector: true,
      // A sentinel that does not answer (frozen, cut off) is passed over for the next one after this long; ioredis
      // would otherwise wait on it without a deadline, and the reconnection with it.
      sentinelCommandTimeout: Math.max(1_000, config.redisCommandTimeoutMs),
      ...(url?.username && { username: decodeURIComponent(url.username) }),
      ...(url?.password && { password: decodeURIComponent(url.password) }),
      ...(url && url.pathname.length > 1 && { db: Number(url.pathname.slice(1)) }),
    });
  }
  return config.redisUrl === undefined ? undefined : new Redis(config.redisUrl, options);
}
