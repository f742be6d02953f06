import { describe, expect, it } from "vitest";
import { countOf, formatPercent, formatShortDate } from "./format.ts";

describe("formatShortDate", () => {
  const now = new Date("2026-06-15T12:34:00Z");
  const DAY_MS = 24 * 3600 * 1000;
  const minutesOf = (iso: string) => `:${String(new Date(iso).getMinutes()).padStart(2, "0")}`;

  it.each([
    { given: "2026-03-10T12:00:00Z", want: { year: false } },
    { given: "2026-06-14T12:00:00Z", want: { year: false } },
    { given: "2027-03-10T12:00:00Z", want: { year: true } },
    { given: "2025-09-10T12:00:00Z", want: { year: true } },
  ])("writes the year of $given only when it is not the current one", ({ given, want }) => {
    const year = String(new Date(given).getFullYear());
    for (const time of ["never", "near"] as const) {
      expect(formatShortDate(given, { time, now }).includes(year)).toBe(want.year);
    }
  });

  it.each([
    { given: "2 minutes ago", offset: -2 * 60_000, time: "near", want: { time: true } },
    { given: "in 7 days", offset: 7 * DAY_MS, time: "near", want: { time: true } },
    { given: "7 days ago", offset: -7 * DAY_MS, time: "near", want: { time: true } },
    { given: "in 8 days", offset: 8 * DAY_MS, time: "near", want: { time: false } },
    { given: "30 days ago", offset: -30 * DAY_MS, time: "near", want: { time: false } },
    { given: "2 minutes ago", offset: -2 * 60_000, time: "never", want: { time: false } },
  ] as const)("writes the time of a date $given with time: $time: $want.time", ({ offset, time, want }) => {
    const iso = new Date(now.getTime() + offset).toISOString();
    expect(formatShortDate(iso, { time, now }).includes(minutesOf(iso))).toBe(want.time);
  });

  it.each([
    { given: null, want: "Never" },
    { given: undefined, want: "Never" },
    { given: "", want: "Never" },
    { given: "not a date", want: "not a date" },
  ])("writes $given as $want", ({ given, want }) => {
    expect(formatShortDate(given, { whenNull: "Never", now })).toBe(want);
  });
});

describe("formatPercent", () => {
  it.each([
    { given: 1, want: "100" },
    { given: 0.5, want: "50" },
    { given: 0.9976, want: "998" },
    { given: 0.99999, want: "100" },
    { given: 0, want: "0" },
  ])("writes $given with the digits $want (to one decimal, in the reader's locale)", ({ given, want }) => {
    expect(formatPercent(given).replace(/\D/g, "")).toBe(want);
    expect(formatPercent(given)).toContain("%");
  });

  it("writes null (nothing settled yet) as a dash", () => {
    expect(formatPercent(null)).toBe("—");
  });
});

describe("countOf", () => {
  it.each([
    { given: 0, want: "0 failed deliveries" },
    { given: 1, want: "1 failed delivery" },
    { given: 2, want: "2 failed deliveries" },
  ])("writes $given as $want", ({ given, want }) => {
    expect(countOf(given, "failed delivery", "failed deliveries")).toBe(want);
  });
});
