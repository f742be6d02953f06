import { describe, expect, it } from "vitest";
import { type AttemptOutcome, type RetryPolicy, retryAfterMs, retryDelayMs, sleep } from "./retry.js";

describe("retryAfterMs", () => {
  it.each([
    ["3", 3000],
    [" 0 ", 0],
    ["61", 61_000],
    ["Wed, 21 Oct 2015 07:28:10 GMT", 10_000],
    ["Wed, 21 Oct 2015 07:27:00 GMT", 0],
    ["soon", undefined],
    ["-1", undefined],
    [null, undefined],
  ])("%j → %s", (value, want) => {
    expect(retryAfterMs(value, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(want);
  });
});

describe("retryDelayMs", () => {
  const policy: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterSeconds: 60 };
  const answer = (status: number, retryAfter?: string, code?: string): AttemptOutcome => ({
    kind: "answer",
    status,
    retryAfter,
    code,
  });
  const noAnswer: AttemptOutcome = { kind: "no-answer" };
  const half = () => 0.5;

  it.each([
    // given: outcome, attempt, remaining ms → want: wait in ms, or undefined (the call ends with this outcome)
    ["429 with Retry-After 20 waits exactly 20 s", answer(429, "20"), 0, 120_000, 20_000],
    ["429 with Retry-After 60 (the default maximum) waits 60 s", answer(429, "60"), 0, 120_000, 60_000],
    ["429 with Retry-After 61 is not retried", answer(429, "61"), 0, 120_000, undefined],
    ["503 with Retry-After 3600 is not retried", answer(503, "3600"), 0, 120_000, undefined],
    ["a wait past the deadline is not taken", answer(429, "20"), 0, 10_000, undefined],
    ["500 without Retry-After backs off (jittered)", answer(500), 0, 120_000, 250],
    ["502 backs off longer on the next attempt", answer(502), 1, 120_000, 500],
    ["504 backs off", answer(504), 2, 120_000, 1000],
    ["503 with Retry-After 0 retries at once", answer(503, "0"), 0, 120_000, 0],
    ["409 IDEMPOTENCY_KEY_IN_USE is retried", answer(409, "1", "IDEMPOTENCY_KEY_IN_USE"), 0, 120_000, 1000],
    ["another 409 is not retried", answer(409, undefined, "EXTERNAL_ID_TAKEN"), 0, 120_000, undefined],
    ["400 is not retried", answer(400), 0, 120_000, undefined],
    ["404 is not retried", answer(404), 0, 120_000, undefined],
    ["501 is not retried", answer(501), 0, 120_000, undefined],
    ["no answer (network error, attempt timeout) backs off", noAnswer, 0, 120_000, 250],
    ["no retries are left after maxRetries", answer(503, "1"), 3, 120_000, undefined],
  ] as const)("%s", (_name, outcome, attempt, remaining, want) => {
    expect(retryDelayMs(outcome, attempt, policy, remaining, Date.now(), half)).toBe(want);
  });

  it("never waits longer than maxDelayMs on backoff", () => {
    const wait = retryDelayMs(noAnswer, 20, { ...policy, maxRetries: 30 }, 1e9, Date.now(), () => 0.999);
    expect(wait).toBeLessThanOrEqual(30_000);
  });

  it("honours a lower maxRetryAfterSeconds", () => {
    expect(retryDelayMs(answer(429, "11"), 0, { ...policy, maxRetryAfterSeconds: 10 }, 1e9)).toBeUndefined();
  });
});

describe("sleep", () => {
  it("rejects with the signal's reason as soon as it aborts", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const waiting = sleep(20_000, controller.signal);
    setTimeout(() => controller.abort(new Error("stop")), 20);
    await expect(waiting).rejects.toThrow("stop");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("rejects at once when the signal is already aborted", async () => {
    await expect(sleep(20_000, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
  });
});
