import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GC_FLAGS, withGcFlags } from "./gc-flags.ts";

describe("withGcFlags", () => {
  it("adds the flags to the options of node", () => {
    expect(withGcFlags(["--enable-source-maps"], "")).toEqual(["--enable-source-maps", ...GC_FLAGS]);
    expect(withGcFlags([], undefined)).toEqual([...GC_FLAGS]);
    expect(GC_FLAGS).toEqual([
      "--max-semi-space-size=16",
      "--no-allocation-site-pretenuring",
      "--heap-growing-percent=50",
    ]);
  });

  it("keeps the operator's own setting of each, on the command line or in NODE_OPTIONS, in either spelling", () => {
    expect(withGcFlags(["--max-semi-space-size=8"], "")).toEqual([
      "--max-semi-space-size=8",
      "--no-allocation-site-pretenuring",
      "--heap-growing-percent=50",
    ]);
    expect(withGcFlags([], "--max-old-space-size=512 --max_semi_space_size=32")).toEqual([
      "--no-allocation-site-pretenuring",
      "--heap-growing-percent=50",
    ]);
    expect(withGcFlags(["--allocation-site-pretenuring", "--heap_growing_percent=100"], "")).toEqual([
      "--allocation-site-pretenuring",
      "--heap_growing_percent=100",
      "--max-semi-space-size=16",
    ]);
    expect(withGcFlags(["--allocation_site_pretenuring", "--max-semi-space-size=64"], "")).toHaveLength(3);
  });

  it("are the flags of npm start's single process", () => {
    const { scripts } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(scripts.start).toContain(`node ${GC_FLAGS.join(" ")} server/dist/main.js`);
  });
});
