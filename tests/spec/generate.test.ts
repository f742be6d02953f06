import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const GENERATE = ["--import", "tsx", "spec/scripts/generate.ts"];
const ARTIFACTS = ["spec/generated/openapi.yaml", "spec/generated/openapi.3.0.yaml", "sdk/src/generated/schema.ts"];

async function generate(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...GENERATE, ...args], { cwd: process.cwd() });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

describe("generated artifacts", () => {
  const out = mkdtempSync(join(tmpdir(), "generate-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("are fresh: the committed files equal a new build of the TypeSpec", async () => {
    const result = await generate("--check");
    expect(result.output).toContain("fresh");
    expect(result.code).toBe(0);
  });

  it("are deterministic: a second build writes the same bytes", async () => {
    expect((await generate("--out", out)).code).toBe(0);
    for (const file of ARTIFACTS) {
      expect(readFileSync(join(out, file), "utf8"), file).toBe(readFileSync(file, "utf8"));
    }
  });

  it("fail the check when a committed artifact was edited by hand, naming it", async () => {
    const file = join(out, "spec/generated/openapi.3.0.yaml");
    writeFileSync(file, `${readFileSync(file, "utf8")}# edited\n`);
    const result = await generate("--check", "--out", out);
    expect(result.code).toBe(1);
    expect(result.output).toContain("spec/generated/openapi.3.0.yaml");
    expect(result.output).not.toContain("sdk/src/generated/schema.ts");
  });

  it("carry the do-not-edit banner", () => {
    for (const file of ARTIFACTS) expect(readFileSync(file, "utf8").slice(0, 200), file).toMatch(/Do not edit/);
  });
});
