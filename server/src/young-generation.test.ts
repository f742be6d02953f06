import { describe, expect, it } from "vitest";
import { withYoungGeneration, YOUNG_GENERATION_FLAG } from "./young-generation.ts";

describe("withYoungGeneration", () => {
  it("adds the flag to the options of node", () => {
    expect(withYoungGeneration(["--enable-source-maps"], "")).toEqual(["--enable-source-maps", YOUNG_GENERATION_FLAG]);
    expect(withYoungGeneration([], undefined)).toEqual([YOUNG_GENERATION_FLAG]);
  });

  it("keeps the operator's own size, on the command line or in NODE_OPTIONS", () => {
    expect(withYoungGeneration(["--max-semi-space-size=8"], "")).toEqual(["--max-semi-space-size=8"]);
    expect(withYoungGeneration([], "--max-old-space-size=512 --max-semi-space-size=32")).toEqual([]);
  });
});
