import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "tests/**/*.test.ts",
      "server/src/**/*.test.ts",
      "sdk/src/**/*.test.ts",
      "webhook-verifier/src/**/*.test.ts",
      "console/src/**/*.test.ts",
    ],
    globalSetup: ["tests/setup/postgres.ts"],
    // Real PostgreSQL, Redis and child processes: generous limits, never used as speed assertions.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // expect.poll's own default (1 s) is a speed assertion on a loaded machine: a Chromium journey waits that long for
    // the page to answer a click. A poll that names no timeout waits for what it expects up to this; none relies on
    // the short default to show that something does not happen (such a poll must name its own timeout).
    expect: { poll: { timeout: 15_000 } },
    pool: "forks",
    // The JSON report is what .ci/run counts from (it prints the plain "N passed, N failed" line).
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-report.json" },
  },
});
