import { describe, expect, it } from "vitest";
import { retryAfterSeconds, tooManyAttempts, waitWording } from "./retry-after.ts";

describe("retryAfterSeconds", () => {
  const now = Date.parse("2026-11-01T08:00:00Z");
  it.each([
    { given: "120", want: 120 },
    { given: " 7 ", want: 7 },
    { given: "0", want: 1 },
    { given: "Sun, 01 Nov 2026 08:02:30 GMT", want: 150 },
    { given: "soon", want: undefined },
    { given: null, want: undefined },
  ])("reads $given as $want", ({ given, want }) => {
    expect(retryAfterSeconds(given, now)).toBe(want);
  });
});

describe("waitWording", () => {
  it.each([
    { given: 1, want: "1 second" },
    { given: 45, want: "45 seconds" },
    { given: 60, want: "1 minute" },
    { given: 61, want: "2 minutes" },
    { given: 3600, want: "60 minutes" },
    { given: 7200, want: "120 minutes" },
    { given: 7201, want: "3 hours" },
    { given: 86400, want: "24 hours" },
  ])("words $given s as $want", ({ given, want }) => {
    expect(waitWording(given)).toBe(want);
  });
});

describe("tooManyAttempts", () => {
  it("says when to try again", () => {
    expect(tooManyAttempts(1800)).toBe("Too many attempts. Try again in 30 minutes.");
  });
  it("says later without a Retry-After", () => {
    expect(tooManyAttempts(undefined)).toBe("Too many attempts. Try again later.");
  });
});
