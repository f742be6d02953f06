import { configDefaults, defineConfig } from "vitest/config";

/** The fleet's hosts share the machine's cores: it runs alone (a group of its own), no other file beside it. */
const FLEET = "tests/fleet/**/*.test.ts";
/** Real PostgreSQL, Redis and child processes: generous limits, never used as speed assertions. */
const LIMITS = { testTimeout: 60_000, hookTimeout: 180_000, pool: "forks" } as const;

export default defineConfig({
  test: {
    // The JSON report is what .ci/run counts from (it prints the plain "N passed, N failed" line).
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-report.json" },
    projects: [
      {
        test: {
          name: "suite",
          include: [
            "tests/**/*.test.ts",
            "server/src/**/*.test.ts",
            "sdk/src/**/*.test.ts",
            "webhook-verifier/src/**/*.test.ts",
            "console/src/**/*.test.ts",
          ],
          exclude: [...configDefaults.exclude, FLEET],
          globalSetup: ["tests/setup/postgres.ts"],
          ...LIMITS,
          // expect.poll's own default (1 s) is a speed assertion on a loaded machine: a Chromium journey waits that
          // long for the page to answer a click. A poll that names no timeout waits for what it expects up to this;
          // none relies on the short default to show that something does not happen (such a poll must name its own).
          expect: { poll: { timeout: 15_000 } },
          sequence: { groupOrder: 0 },
        },
      },
      {
        // It brings its own PostgreSQL and Redis (tests/helpers/fleet.ts).
        test: { name: "fleet", include: [FLEET], ...LIMITS, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
