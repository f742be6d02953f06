import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import YAML from "yaml";

const run = promisify(execFile);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
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

/** The value at a JSON pointer of a parsed document. */
function at(doc: unknown, pointer: string): unknown {
  return pointer
    .replace(/^#\//, "")
    .split("/")
    .map((part) => decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
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

describe("@redocly/cli lint of the 2.0 document", () => {
  // 2.0 has no null: a field the API sends as null is `x-nullable` (the 2.0 convention), which Redocly's 2.0 rules do
  // not read, so an example holding that null is reported; every other problem fails.
  it("reports zero errors, and warnings only for the nulls of x-nullable fields in examples", async () => {
    const file = "spec/generated/swagger.2.0.yaml";
    const doc = YAML.parse(readFileSync(file, "utf8")) as unknown;
    const report = await lint(file);
    const others = report.problems.filter(
      (problem) =>
        !(problem.ruleId === "no-invalid-schema-examples" && at(doc, problem.location[0]?.pointer ?? "") === null),
    );
    expect(others.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });
});
