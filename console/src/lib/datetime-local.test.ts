import { describe, expect, it } from "vitest";
import { fromDateTimeLocal, toDateTimeLocal } from "./datetime-local.ts";

describe("toDateTimeLocal", () => {
  it.each([
    { given: new Date(2026, 10, 1, 8, 5, 59, 999), want: "2026-11-01T08:05" },
    { given: new Date(2026, 0, 9, 0, 0), want: "2026-01-09T00:00" },
    { given: new Date(2026, 11, 31, 23, 59, 30), want: "2026-12-31T23:59" },
  ])("writes $given as $want, to the minute rounded down", ({ given, want }) => {
    expect(toDateTimeLocal(given)).toBe(want);
  });
});

describe("fromDateTimeLocal", () => {
  it.each([
    { given: "2026-11-01T08:05", want: new Date(2026, 10, 1, 8, 5).toISOString() },
    { given: "2026-11-01T08:05:30", want: new Date(2026, 10, 1, 8, 5, 30).toISOString() },
    { given: "", want: undefined },
    { given: "2026-11-01", want: undefined },
    { given: "2026-13-01T08:05", want: undefined },
    { given: "2026-11-01T08:05Z", want: undefined },
  ])("reads $given as $want", ({ given, want }) => {
    expect(fromDateTimeLocal(given)).toBe(want);
  });

  it("reads back what toDateTimeLocal wrote", () => {
    const instant = new Date(2026, 5, 15, 12, 34);
    expect(fromDateTimeLocal(toDateTimeLocal(instant))).toBe(instant.toISOString());
  });
});
