import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey, isWellFormedApiKey } from "./key-format.ts";

describe("API key format", () => {
  it.each([
    ["live", /^sk_live_[0-9A-Za-z]{38}$/],
    ["test", /^sk_test_[0-9A-Za-z]{38}$/],
  ] as const)("generates %s keys that pass their own checksum, and differ", (mode, shape) => {
    const keys = Array.from({ length: 50 }, () => generateApiKey(mode));
    for (const key of keys) {
      expect(key).toMatch(shape);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(50);
    expect(displayPrefix(keys[0] as string)).toHaveLength(12);
  });

  it("refuses a key with one character changed, or another prefix", () => {
    const key = generateApiKey("live");
    const last = key.at(-1) === "A" ? "B" : "A";
    expect(isWellFormedApiKey(key.slice(0, -1) + last)).toBe(false);
    const middle = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(isWellFormedApiKey(middle)).toBe(false);
    expect(isWellFormedApiKey(`sk_prod_${key.slice(8)}`)).toBe(false);
    expect(isWellFormedApiKey(`sk_test_${key.slice(8)}x`)).toBe(false);
  });
});
