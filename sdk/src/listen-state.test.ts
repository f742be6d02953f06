/** The decisions of listen's state file: which feed a key reads, and when a page shows the feed was reset. */
import { describe, expect, it } from "vitest";
import { defaultStateFile, feedMode, feedWasReset } from "./listen-state.js";

describe("feedWasReset", () => {
  it.each([
    { kept: null, page: null, want: false },
    { kept: null, page: "2026-11-02T08:00:00Z", want: true },
    { kept: "2026-11-02T08:00:00Z", page: "2026-11-02T08:00:00Z", want: false },
    { kept: "2026-11-02T08:00:00Z", page: "2026-11-03T08:00:00Z", want: true },
    // An unknown side says nothing: an earlier version's file, a 410 EVENTS_RESET just followed, an older server.
    { kept: undefined, page: "2026-11-02T08:00:00Z", want: false },
    { kept: "2026-11-02T08:00:00Z", page: undefined, want: false },
  ])("is $want with $kept kept and $page on the page", ({ kept, page, want }) => {
    expect(feedWasReset(kept, page)).toBe(want);
  });
});

describe("feedMode and defaultStateFile", () => {
  it.each([
    { key: "sk_test_4eC39HqLyjWDarjtT1zdp7dcAbC123", mode: "test", file: ".data/listen/test.json" },
    { key: "sk_live_4eC39HqLyjWDarjtT1zdp7dcAbC123", mode: "live", file: ".data/listen/live.json" },
  ])("reads the $mode feed with $key, kept in $file", ({ key, mode, file }) => {
    expect(feedMode(key)).toBe(mode);
    expect(defaultStateFile(feedMode(key))).toBe(file);
  });
});
