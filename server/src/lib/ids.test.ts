import { describe, expect, it } from "vitest";
import { idPattern, newId } from "./ids.ts";

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
