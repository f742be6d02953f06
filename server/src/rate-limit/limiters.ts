/**
 * The counters behind the rate-limit rules (rate-limiter-flexible), each atomic across processes (an upsert in
 * PostgreSQL, a Lua script in Redis), so several server processes sharing a store admit exactly the budget.
 *
 * Where each rule counts follows what it guards (`LimitRule.guards`):
 *
 * - The account limiters (register, forgot, resend, login) count in PostgreSQL, the system of record, always. They
 *   are the defence against abuse, so each must admit exactly its budget over its window whatever Redis does: a
 *   count kept in Redis is lost when Redis is killed, restarted without persistence or flushed, and a fall-back that
 *   starts from zero hands an attacker who can make Redis fail a second budget. They are few (a few requests per
 *   person an hour, each already writing to PostgreSQL or sending an e-mail), so an upsert per check costs little
 *   (docs/performance.md), and no account answer ever waits on Redis.
 * - The request budgets (`api-key`, `session`), on every API call, count in Redis when `REDIS_URL` is set, with
 *   PostgreSQL as the insurance: when a Redis command fails or takes longer than its timeout, the same rule is
 *   counted in PostgreSQL instead, which every process shares, so budgets stay exact across processes during the
 *   outage. After a failure, Redis is left alone for `REDIS_RETRY_AFTER_FAILURE_MS`: a hung Redis then costs one
 *   command timeout every few seconds, not one per request. Counts of a one-minute budget made in Redis before an
 *   outage are not seen by the insurance (nor the other way round): at worst one extra minute's budget, the price
 *   of keeping the hot path off PostgreSQL.
 *
 * A store failure is an `unavailable` decision (the caller answers 503), never a silent pass.
 *
 * A key over an account limiter's budget is then refused from this process's memory until its window ends
 * (rate-limiter-flexible's `inMemoryBlockOnConsumed`, at one point past the budget): a flood of refused account
 * requests costs no store round trip.
 * The limits stay exact: only a key the store has counted over its budget is blocked, for no longer than the store
 * would refuse it. A cleared key (`limits:clear`) is unblocked here by `clear`, and in the other processes by
 * `forget` on the notification the clearing sends (RATE_LIMIT_CLEARED_CHANNEL).
 */
import type { Redis } from "ioredis";
import type pg from "pg";
import type { Logger } from "pino";
import { type RateLimiterAbstract, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { withDeadline } from "../lib/deadline.ts";
import { LIMITER_NAMES, type LimiterName } from "../lib/limiter-names.ts";
import { type CounterState, decide, effectiveRule, type LimitDecision, type LimitRule } from "./policy.ts";

/** The NOTIFY channel of a cleared key; its payload is `<limiter> <key>`. */
export const RATE_LIMIT_CLEARED_CHANNEL = "rate_limit_cleared";

/** How long the limiters count in PostgreSQL after a Redis failure before they try Redis again. */
const REDIS_RETRY_AFTER_FAILURE_MS = 2_000;

/** `Retry-After` of a decision the counters could not make. */
const STORE_RETRY_AFTER_SECONDS = 5;

export interface LimiterOptions {
  redis: Redis | undefined;
  pool: pg.Pool;
  config: Pick<Config, "rateLimitKeyPrefix" | "rateLimits" | "redisCommandTimeoutMs">;
  logger: Logger;
}

export interface Limiters {
  rule(name: LimiterName): LimitRule;
  /**
   * Consumes one point (or `points`) of each limiter in order and stops at the first over its budget: the limiters
   * after it are not touched. Zero points spends nothing and still refuses a key that is over its budget.
   */
  consume(names: readonly LimiterName[], keys: (rule: LimitRule) => string, points?: number): Promise<LimitDecision>;
  /** Clears one limiter's counter for one key, and tells every process to unblock it; true when there was one. */
  clear(name: LimiterName, key: string): Promise<boolean>;
  /** Unblocks a key that this process refuses from memory (another process cleared it); a `clear` notification's payload. */
  forget(payload: string): void;
}

/** The part of rate-limiter-flexible's store limiters that holds the keys blocked in memory (pinned version). */
interface InMemoryBlocks {
  getKey(key: string): string;
  _inMemoryBlockedKeys: { delete(rlKey: string): void };
}

export function createLimiters(options: LimiterOptions): Limiters {
  const rules = new Map(LIMITER_NAMES.map((name) => [name, effectiveRule(name, options.config.rateLimits)]));
  const postgres = new Map<LimiterName, RateLimiterAbstract>();
  const redis = new Map<LimiterName, RateLimiterAbstract>();
  for (const [name, rule] of rules) {
    const base = {
      keyPrefix: `${options.config.rateLimitKeyPrefix}:${name}`,
      points: rule.points,
      duration: rule.durationSeconds,
      // An account limiter refuses a key from memory once the store has counted it one point past its budget, until
      // its window ends. Not the request budgets: on every /v1 call the option cost about 40 % more CPU per request
      // (docs/performance.md), and a key over its budget is cheap to refuse there already.
      ...(rule.guards === "account" && { inMemoryBlockOnConsumed: rule.points + 1 }),
    };
    postgres.set(
      name,
      new RateLimiterPostgres({
        ...base,
        storeClient: options.pool,
        tableName: "rate_limits",
        tableCreated: true,
        // One instance sweeps expired rows of the shared table (every 5 minutes, on an unref'd timer).
        clearExpiredByTimeout: name === LIMITER_NAMES[0],
      }),
    );
    if (options.redis && rule.guards === "request") {
      // No insurance option here: the fall-back to PostgreSQL is below, where it can also skip a failing Redis.
      redis.set(name, new RateLimiterRedis({ ...base, storeClient: options.redis, rejectIfRedisNotReady: true }));
    }
  }
  const rule = (name: LimiterName): LimitRule => {
    const found = rules.get(name);
    if (!found) throw new Error(`unknown limiter ${name}`);
    return found;
  };
  let redisFailedAt = Number.NEGATIVE_INFINITY;

  /**
   * One point of one rule: a request budget in Redis while it answers, PostgreSQL otherwise; an account limiter in
   * PostgreSQL (it has no Redis counter). Throws RateLimiterRes when over.
   */
  const consume = async (name: LimiterName, key: string, points: number): Promise<RateLimiterRes> => {
    const inRedis = redis.get(name);
    if (inRedis && Date.now() - redisFailedAt >= REDIS_RETRY_AFTER_FAILURE_MS) {
      try {
        // The deadline, not ioredis's own timeout, decides: a busy event loop must not make an answer that came in
        // time look late, or one process would count in PostgreSQL while the others count in Redis.
        return await withDeadline(inRedis.consume(key, points), options.config.redisCommandTimeoutMs);
      } catch (error) {
        if (error instanceof RateLimiterRes) throw error;
        if (Date.now() - redisFailedAt >= REDIS_RETRY_AFTER_FAILURE_MS) {
          options.logger.warn({ err: error, limiter: name }, "Redis failed; counting in PostgreSQL");
        }
        redisFailedAt = Date.now();
      }
    }
    return await (postgres.get(name) as RateLimiterAbstract).consume(key, points);
  };

  return {
    rule,
    async consume(names, keys, points = 1) {
      const policies = names.map(rule);
      const passed: CounterState[] = [];
      for (const current of policies) {
        try {
          const result = await consume(current.name, keys(current), points);
          passed.push({ rule: current, remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext });
        } catch (error) {
          if (error instanceof RateLimiterRes) {
            return decide(policies, passed, { rule: current, remaining: 0, msBeforeReset: error.msBeforeNext });
          }
          options.logger.warn({ err: error, limiter: current.name }, "rate-limit store failed");
          return {
            outcome: "unavailable",
            retryAfter: STORE_RETRY_AFTER_SECONDS,
            headers: { "Retry-After": String(STORE_RETRY_AFTER_SECONDS) },
            cause: error,
          };
        }
      }
      return decide(policies, passed);
    },
    async clear(name, key) {
      rule(name);
      // A request budget's insurance may hold the count of an outage; an account limiter has its one counter.
      const cleared = await Promise.all(
        [redis.get(name), postgres.get(name)].map(async (limiter) => Boolean(limiter && (await limiter.delete(key)))),
      );
      await options.pool.query("SELECT pg_notify($1, $2)", [RATE_LIMIT_CLEARED_CHANNEL, `${name} ${key}`]);
      return cleared.some(Boolean);
    },
    forget(payload) {
      const [name, ...rest] = payload.split(" ");
      const key = rest.join(" ");
      for (const limiter of [redis.get(name as LimiterName), postgres.get(name as LimiterName)]) {
        const blocks = limiter as unknown as InMemoryBlocks | undefined;
        blocks?._inMemoryBlockedKeys.delete(blocks.getKey(key));
      }
    },
  };
}
