import { describe, expect, it } from "vitest";
import { isRetryableConflict } from "./conflict.ts";

describe("isRetryableConflict", () => {
  it.each([
    ["a deadlock", { code: "40P01" }, true],
    ["a serialization failure", { code: "40001" }, true],
    ["a lock not available in time", { code: "55P03" }, true],
    ["a conflict as the cause of another error", new Error("wrapped", { cause: { code: "40P01" } }), true],
    ["a statement timeout (the database's own slowness: SERVICE_UNAVAILABLE)", { code: "57014" }, false],
    ["a unique violation", { code: "23505" }, false],
    ["no error at all", undefined, false],
  ])("%s: %s", (_name, error, want) => {
    expect(isRetryableConflict(error)).toBe(want);
  });
});
