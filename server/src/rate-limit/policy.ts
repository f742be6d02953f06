/**
 * The rate-limit rules and the decisions made from counter states: pure, no storage here.
 *
 * The account limits are the contract's table ("Limits" in the interface specification), checked in the table's
 * order, IP first; a request stopped by one limiter consumes nothing of the limiters after it. The limiters' names
 * live below, in lib/limiter-names.ts, where configuration can read them too.
 */
import type { LimiterName, LimitOverrides } from "../lib/limiter-names.ts";

// With the rules, for their users (limiters.ts, the admin CLI).

type LimitKeyKind = "ip" | "email" | "api-key" | "user";

export interface LimitRule {
  readonly name: LimiterName;
  readonly points: number;
  readonly durationSeconds: number;
  readonly keyedBy: LimitKeyKind;
  /** `reject`: 429 + Retry-After. `throttle`: the normal 200 with `throttled: true` + Retry-After. */
  readonly onExceed: "reject" | "throttle";
  /**
   * `account`: a defence of the account endpoints against abuse (a few requests per person an hour), exact whatever
   * a cache does. `request`: the request budget of an authenticated caller, on every call of the API.
   */
  readonly guards: "account" | "request";
}

const HOUR = 3600;
const DAY = 86400;

export const LIMIT_RULES: Readonly<Record<LimiterName, LimitRule>> = {
  "register-ip": {
    name: "register-ip",
    points: 5,
    durationSeconds: HOUR,
    keyedBy: "ip",
    onExceed: "reject",
    guards: "account",
  },
  "register-email": {
    name: "register-email",
    points: 5,
    durationSeconds: HOUR,
    keyedBy: "email",
    onExceed: "reject",
    guards: "account",
  },
  "forgot-ip": {
    name: "forgot-ip",
    points: 5,
    durationSeconds: HOUR,
    keyedBy: "ip",
    onExceed: "reject",
    guards: "account",
  },
  // 200, not 429: a 429 for one address would tell a caller that the address is being asked about.
  "forgot-email": {
    name: "forgot-email",
    points: 5,
    durationSeconds: HOUR,
    keyedBy: "email",
    onExceed: "throttle",
    guards: "account",
  },
  "resend-ip": {
    name: "resend-ip",
    points: 50,
    durationSeconds: DAY,
    keyedBy: "ip",
    onExceed: "reject",
    guards: "account",
  },
  "resend-cooldown": {
    name: "resend-cooldown",
    points: 1,
    durationSeconds: 60,
    keyedBy: "email",
    onExceed: "throttle",
    guards: "account",
  },
  "resend-email": {
    name: "resend-email",
    points: 10,
    durationSeconds: DAY,
    keyedBy: "email",
    onExceed: "throttle",
    guards: "account",
  },
  // Not in the contract's table: credential stuffing protection for login.
  "login-ip": {
    name: "login-ip",
    points: 30,
    durationSeconds: 15 * 60,
    keyedBy: "ip",
    onExceed: "reject",
    guards: "account",
  },
  "login-email": {
    name: "login-email",
    points: 10,
    durationSeconds: 15 * 60,
    keyedBy: "email",
    onExceed: "reject",
    guards: "account",
  },
  // Request budgets of authenticated callers: per API key on /v1, per user on /api/workspace.
  "api-key": {
    name: "api-key",
    points: 600,
    durationSeconds: 60,
    keyedBy: "api-key",
    onExceed: "reject",
    guards: "request",
  },
  session: {
    name: "session",
    points: 300,
    durationSeconds: 60,
    keyedBy: "user",
    onExceed: "reject",
    guards: "request",
  },
};

/** Which limiters guard which endpoint, in the order they are checked. */
export const LIMIT_CHAINS = {
  register: ["register-ip", "register-email"],
  forgot: ["forgot-ip", "forgot-email"],
  resend: ["resend-ip", "resend-cooldown", "resend-email"],
  login: ["login-ip", "login-email"],
  apiKey: ["api-key"],
  session: ["session"],
} as const satisfies Record<string, readonly LimiterName[]>;

export function effectiveRule(name: LimiterName, overrides: LimitOverrides): LimitRule {
  const rule = LIMIT_RULES[name];
  return {
    ...rule,
    durationSeconds: overrides.windows[name] ?? rule.durationSeconds,
    points: overrides.points[name] ?? rule.points,
  };
}

/** The state of one counter after a consume. */
export interface CounterState {
  readonly rule: LimitRule;
  /** Points left in the window (0 when the request was over the budget). */
  readonly remaining: number;
  /** Milliseconds until the counter expires. */
  readonly msBeforeReset: number;
}

/** RFC 9110 §10.2.3 delay-seconds: whole seconds, rounded up, at least 1 (never "retry now"). */
export function retryAfterHeaderSeconds(msBeforeReset: number): number {
  return Math.max(1, Math.ceil(msBeforeReset / 1000));
}

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` lists every policy
 * of the chain (quota `q`, window `w`); `RateLimit` reports the counter that stopped the request, or else the
 * consulted counter with the least room left (remaining `r`, seconds to reset `t`).
 */
export function rateLimitHeaders(
  policies: readonly LimitRule[],
  states: readonly CounterState[],
  exceeded?: CounterState,
): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Policy": policies.map((rule) => `"${rule.name}";q=${rule.points};w=${rule.durationSeconds}`).join(", "),
  };
  // Ties are broken on the whole seconds reported, then by chain order (the sort is stable): comparing raw
  // milliseconds would let two fresh counters swap places by a millisecond, so equal requests got different headers.
  const tightest =
    exceeded ??
    [...states].sort(
      (a, b) =>
        a.remaining - b.remaining ||
        retryAfterHeaderSeconds(a.msBeforeReset) - retryAfterHeaderSeconds(b.msBeforeReset),
    )[0];
  if (tightest) {
    headers.RateLimit = `"${tightest.rule.name}";r=${tightest.remaining};t=${retryAfterHeaderSeconds(tightest.msBeforeReset)}`;
  }
  return headers;
}

/** What the endpoint does after its chain was checked. */
export type LimitDecision =
  | {
      readonly outcome: "allow";
      /** Points left in the tightest counter of the chain after this request. */
      readonly remaining: number;
      readonly headers: Record<string, string>;
    }
  | {
      readonly outcome: "reject" | "throttle";
      readonly by: LimiterName;
      readonly retryAfter: number;
      readonly headers: Record<string, string>;
    }
  /** The counters could not be reached: no answer either way, so the caller must refuse (never a silent pass). */
  | {
      readonly outcome: "unavailable";
      readonly retryAfter: number;
      readonly headers: Record<string, string>;
      readonly cause: unknown;
    };

/** Decides from the states consumed so far; `exceeded` is the state of the limiter that stopped the chain. */
export function decide(
  policies: readonly LimitRule[],
  passed: readonly CounterState[],
  exceeded?: CounterState,
): LimitDecision {
  const headers = rateLimitHeaders(policies, passed, exceeded);
  if (!exceeded) {
    return { outcome: "allow", remaining: Math.min(...passed.map((state) => state.remaining)), headers };
  }
  const retryAfter = retryAfterHeaderSeconds(exceeded.msBeforeReset);
  return {
    outcome: exceeded.rule.onExceed,
    by: exceeded.rule.name,
    retryAfter,
    headers: { ...headers, "Retry-After": String(retryAfter) },
  };
}
