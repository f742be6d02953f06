import { describe, expect, it } from "vitest";
import { isRetryableConflict, retryConflicts } from "./conflict.ts";

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

describe("retryConflicts", () => {
  it("runs a transaction that a deadlock ended again, and gives its result", async () => {
    let runs = 0;
    const result = await retryConflicts(async () => {
      runs++;
      if (runs < 3) throw Object.assign(new Error("deadlock detected"), { code: "40P01" });
      return "saved";
    });
    expect({ result, runs }).toEqual({ result: "saved", runs: 3 });
  });

  it("throws any other failure at once", async () => {
    let runs = 0;
    const failing = retryConflicts(async () => {
      runs++;
      throw Object.assign(new Error("duplicate key"), { code: "23505" });
    });
    await expect(failing).rejects.toThrow("duplicate key");
    expect(runs).toBe(1);
  });

  it("throws the conflict after 5 runs", async () => {
    let runs = 0;
    const failing = retryConflicts(async () => {
      runs++;
      throw Object.assign(new Error("could not serialize access"), { code: "40001" });
    });
    await expect(failing).rejects.toThrow("could not serialize access");
    expect(runs).toBe(5);
  });
});
