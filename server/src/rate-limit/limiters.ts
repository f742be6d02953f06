/**
 * The counters behind the rate-limit rules (rate-limiter-flexible): Redis when `REDIS_URL` is set, PostgreSQL
 * otherwise. Both are atomic across processes (a Lua script in Redis, an upsert in PostgreSQL), so several
 * server processes sharing the store admit exactly the budget.
 *
 * With Redis, each limiter has an in-memory insurance limiter with the same budget: when Redis fails, limits still
 * hold per process and requests keep being answered (never unlimited). With PostgreSQL, a store failure is an
 * error (503), never a silent pass.
 */
import type { Redis } from "ioredis";
import type pg from "pg";
import type { Logger } from "pino";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { AppError } from "../http/errors.ts";
import {
  type CounterState,
  decide,
  effectiveRule,
  LIMITER_NAMES,
  type LimitDecision,
  type LimiterName,
  type LimitRule,
} from "./policy.ts";

export interface LimiterOptions {
  redis: Redis | undefined;
  pool: pg.Pool;
  config: Pick<Config, "rateLimitKeyPrefix" | "rateLimits">;
  logger: Logger;
}

export interface Limiters {
  readonly store: "redis" | "postgres";
  rule(name: LimiterName): LimitRule;
  /**
   * Consumes one point of each limiter in order and stops at the first over its budget: the limiters after it
   * are not touched.
   */
  check(names: readonly LimiterName[], keys: (rule: LimitRule) => string): Promise<LimitDecision>;
  /** Clears one limiter's counter for one key; true when there was one. */
  clear(name: LimiterName, key: string): Promise<boolean>;
}

export function createLimiters(options: LimiterOptions): Limiters {
  const rules = new Map(LIMITER_NAMES.map((name) => [name, effectiveRule(name, options.config.rateLimits)]));
  const instances = new Map<LimiterName, RateLimiterAbstract>();
  for (const [name, rule] of rules) {
    const base = {
      keyPrefix: `${options.config.rateLimitKeyPrefix}:${name}`,
      points: rule.points,
      duration: rule.durationSeconds,
    };
    instances.set(
      name,
      options.redis
        ? new RateLimiterRedis({
            ...base,
            storeClient: options.redis,
            // Straight to the insurance limiter while Redis is not connected, instead of waiting on it.
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory(base),
          })
        : new RateLimiterPostgres({
            ...base,
            storeClient: options.pool,
            tableName: "rate_limits",
            tableCreated: true,
            // One instance sweeps expired rows of the shared table (every 5 minutes, on an unref'd timer).
            clearExpiredByTimeout: name === LIMITER_NAMES[0],
          }),
    );
  }
  const instance = (name: LimiterName): RateLimiterAbstract => {
    const limiter = instances.get(name);
    if (!limiter) throw new Error(`unknown limiter ${name}`);
    return limiter;
  };
  const rule = (name: LimiterName): LimitRule => {
    const found = rules.get(name);
    if (!found) throw new Error(`unknown limiter ${name}`);
    return found;
  };

  return {
    store: options.redis ? "redis" : "postgres",
    rule,
    async check(names, keys) {
      const policies = names.map(rule);
      const passed: CounterState[] = [];
      for (const current of policies) {
        try {
          const result = await instance(current.name).consume(keys(current));
          passed.push({ rule: current, remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext });
        } catch (error) {
          if (error instanceof RateLimiterRes) {
            return decide(policies, passed, { rule: current, remaining: 0, msBeforeReset: error.msBeforeNext });
          }
          options.logger.error({ err: error, limiter: current.name }, "rate-limit store failed");
          throw new AppError("SERVICE_UNAVAILABLE", { headers: { "Retry-After": "5" }, cause: error });
        }
      }
      return decide(policies, passed);
    },
    async clear(name, key) {
      return Boolean(await instance(name).delete(key));
    },
  };
}
