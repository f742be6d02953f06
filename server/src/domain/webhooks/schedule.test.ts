import { describe, expect, it } from "vitest";
import { nextStep, parseRetryAfter, RETRY_SCHEDULE_SECONDS } from "./schedule.ts";

const now = Date.parse("2026-11-22T00:00:00Z");
const step = (attempt: number, status: number | undefined, retryAfter?: string, random = () => 0.5) =>
  nextStep({ attempt, status, retryAfter, schedule: RETRY_SCHEDULE_SECONDS, now, random });

describe("the delivery retry schedule", () => {
  it.each([200, 201, 204, 299])("%i is delivered", (status) => {
    expect(step(1, status)).toEqual({ kind: "delivered" });
  });

  it("410 Gone disables instead of retrying", () => {
    expect(step(1, 410)).toEqual({ kind: "gone" });
  });

  it.each([
    [1, 5],
    [2, 300],
    [3, 1800],
    [4, 7200],
    [5, 18000],
    [6, 36000],
    [7, 50400],
    [8, 72000],
    [9, 86400],
  ])("after attempt %i waits %i s (without jitter)", (attempt, seconds) => {
    expect(step(attempt, 500)).toEqual({ kind: "retry", delaySeconds: seconds });
  });

  it("gives up after the tenth attempt", () => {
    expect(step(10, 500)).toEqual({ kind: "give-up" });
  });

  it("jitters by ±20 %", () => {
    expect(step(2, undefined, undefined, () => 0)).toEqual({ kind: "retry", delaySeconds: 240 });
    expect(step(2, undefined, undefined, () => 1)).toEqual({ kind: "retry", delaySeconds: 360 });
  });

  it("waits at least Retry-After on 429 and 503, and ignores it otherwise", () => {
    expect(step(1, 429, "120")).toEqual({ kind: "retry", delaySeconds: 120 });
    expect(step(1, 503, "Sun, 22 Nov 2026 00:10:00 GMT")).toEqual({ kind: "retry", delaySeconds: 600 });
    expect(step(2, 503, "1")).toEqual({ kind: "retry", delaySeconds: 300 });
    expect(step(1, 500, "120")).toEqual({ kind: "retry", delaySeconds: 5 });
  });

  it("reads Retry-After in seconds or as a date", () => {
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter("Sun, 22 Nov 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});
