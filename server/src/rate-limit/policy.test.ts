import { describe, expect, it } from "vitest";
import {
  type CounterState,
  decide,
  effectiveRule,
  LIMIT_RULES,
  rateLimitHeaders,
  retryAfterHeaderSeconds,
} from "./policy.ts";

const state = (name: keyof typeof LIMIT_RULES, remaining: number, msBeforeReset: number): CounterState => ({
  rule: LIMIT_RULES[name],
  remaining,
  msBeforeReset,
});

describe("the contract's limit table", () => {
  it.each([
    ["register-ip", 5, 3600, "reject"],
    ["register-email", 5, 3600, "reject"],
    ["forgot-ip", 5, 3600, "reject"],
    ["forgot-email", 5, 3600, "throttle"],
    ["resend-ip", 50, 86400, "reject"],
    ["resend-cooldown", 1, 60, "throttle"],
    ["resend-email", 10, 86400, "throttle"],
  ] as const)("%s: %i per %i s, then %s", (name, points, seconds, onExceed) => {
    expect(LIMIT_RULES[name]).toMatchObject({ points, durationSeconds: seconds, onExceed });
  });
});

describe("retryAfterHeaderSeconds", () => {
  it.each([
    [0, 1],
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [3_599_500, 3600],
  ])("%i ms → %i s", (ms, seconds) => {
    expect(retryAfterHeaderSeconds(ms)).toBe(seconds);
  });
});

describe("decide", () => {
  const chain = [LIMIT_RULES["forgot-ip"], LIMIT_RULES["forgot-email"]];

  it("allows when nothing is exceeded, reporting the tightest counter", () => {
    const decision = decide(chain, [state("forgot-ip", 4, 3_600_000), state("forgot-email", 1, 1_000_000)]);
    expect(decision).toEqual({
      outcome: "allow",
      remaining: 1,
      headers: {
        "RateLimit-Policy": '"forgot-ip";q=5;w=3600, "forgot-email";q=5;w=3600',
        RateLimit: '"forgot-email";r=1;t=1000',
      },
    });
  });

  it("throttles on the e-mail limiter with its Retry-After", () => {
    const decision = decide(chain, [state("forgot-ip", 3, 3_000_000)], state("forgot-email", 0, 1_234_567));
    expect(decision).toMatchObject({ outcome: "throttle", by: "forgot-email", retryAfter: 1235 });
    expect(decision.headers).toMatchObject({ "Retry-After": "1235", RateLimit: '"forgot-email";r=0;t=1235' });
  });

  it("reports the same counter for equal states a millisecond apart (chain order breaks ties)", () => {
    const early = decide(chain, [state("forgot-ip", 4, 3_599_998), state("forgot-email", 4, 3_599_999)]);
    const late = decide(chain, [state("forgot-ip", 4, 3_599_999), state("forgot-email", 4, 3_599_998)]);
    expect(early.headers.RateLimit).toBe('"forgot-ip";r=4;t=3600');
    expect(late.headers).toEqual(early.headers);
  });

  it("rejects on the IP limiter", () => {
    expect(decide(chain, [], state("forgot-ip", 0, 10_000))).toMatchObject({ outcome: "reject", by: "forgot-ip" });
  });

  it("reports the exceeded counter even when another is as tight", () => {
    const headers = rateLimitHeaders(
      [LIMIT_RULES["resend-cooldown"], LIMIT_RULES["resend-email"]],
      [state("resend-cooldown", 0, 60_000)],
      state("resend-email", 0, 86_000_000),
    );
    expect(headers.RateLimit).toMatch(/^"resend-email";r=0;/);
  });
});

describe("effectiveRule", () => {
  it("applies window and budget overrides and nothing else", () => {
    expect(effectiveRule("register-ip", { windows: { "register-ip": 2 }, points: {} })).toEqual({
      ...LIMIT_RULES["register-ip"],
      durationSeconds: 2,
    });
    expect(effectiveRule("api-key", { windows: {}, points: { "api-key": 50 } }).points).toBe(50);
  });
});
