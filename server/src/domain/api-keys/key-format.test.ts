import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey, isWellFormedApiKey } from "./key-format.ts";

describe("API key format", () => {
  it("generates keys that pass their own checksum, and differ", () => {
    const keys = Array.from({ length: 50 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(50);
    expect(displayPrefix(keys[0] as string)).toHaveLength(12);
  });

  it("refuses a key with one character changed", () => {
    const key = generateApiKey();
    const last = key.at(-1) === "A" ? "B" : "A";
    expect(isWellFormedApiKey(key.slice(0, -1) + last)).toBe(false);
    const middle = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(isWellFormedApiKey(middle)).toBe(false);
    expect(isWellFormedApiKey(`sk_test_${key.slice(8)}`)).toBe(false);
  });
});
