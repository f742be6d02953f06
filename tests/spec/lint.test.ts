import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

async function lint(file: string): Promise<LintReport> {
  // Exit code 1 means "problems found"; the JSON report on stdout says which.
  const result = await run("npx", ["--no-install", "redocly", "lint", file, "--format=json"], {
    cwd: process.cwd(),
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  const start = result.stdout.indexOf("{");
  return JSON.parse(result.stdout.slice(start)) as LintReport;
}

describe("@redocly/cli lint (recommended rules)", () => {
  // Warnings too: an unused component or an operation without a 4xx is what an importer trips over.
  it.each(["spec/generated/openapi.yaml", "spec/generated/openapi.3.0.yaml"])(
    "reports zero errors and zero warnings on %s",
    async (file) => {
      const report = await lint(file);
      expect(report.problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
  );
});
