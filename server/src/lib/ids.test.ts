import { encodeTime } from "ulid";
import { describe, expect, it } from "vitest";
import { firstIdAt, idPattern, newId } from "./ids.ts";

describe("newId", () => {
  it("gives unique ids of the contract's pattern that sort in the order they were made", () => {
    const ids = Array.from({ length: 50_000 }, () => newId("lead"));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => idPattern("lead").test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it("draws every character of the random part uniformly from Crockford's 32", () => {
    // A later millisecond gives a new random part (an earlier one would only increment the last, to keep order).
    const counts = new Map<string, number>();
    const later = Date.now() + 1_000_000;
    for (let ms = 0; ms < 4_000; ms++) {
      for (const char of newId("event", later + ms).slice(-16)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(32);
    // 64,000 draws: 2,000 expected per character; a fair source stays within ±15 % of it.
    for (const count of counts.values()) expect(Math.abs(count - 2_000)).toBeLessThan(300);
  });
});

describe("firstIdAt", () => {
  it("sorts above every id made before its time and below every id made at or after it, however late it is asked", () => {
    const at = Date.parse("2026-10-01T00:00:00Z");
    // The last id of the millisecond before (the highest random part).
    const before = `evt_${encodeTime(at - 1, 10)}${"Z".repeat(16)}`;
    // Asked after ids of a later time were made: newId would stay monotonic, firstIdAt does not.
    newId("event", Date.now());
    const first = firstIdAt("event", at);
    expect(first).toMatch(idPattern("event"));
    expect(before < first).toBe(true);
    expect(first <= newId("event", Date.now())).toBe(true);
    expect(firstIdAt("event", at - 1) < first).toBe(true);
  });

  it("gives the smallest id of all for a time before 1970, as a window's bound", () => {
    expect(firstIdAt("delivery", Date.parse("1969-07-20T20:17:00Z"))).toBe(`dlv_${"0".repeat(26)}`);
    expect(firstIdAt("delivery", -1)).toBe(firstIdAt("delivery", 0));
  });
});
