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
    pool: "forks",
    // The JSON report is what .ci/run counts from (it prints the plain "N passed, N failed" line).
    reporters: ["default", "json"],
    outputFile: { json: ".tmp/vitest-report.json" },
  },
});
