/**
 * No unused file, export or dependency (knip.jsonc): checked on the real tree, and shown to fail on a small project
 * with one unused file, one unused export and one unused dependency.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = new URL("../..", import.meta.url).pathname;
const knip = join(repo, "node_modules", ".bin", "knip");

function runKnip(cwd: string): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync(knip, ["--no-progress"], { cwd, encoding: "utf8", stdio: "pipe" }) };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

describe("knip", () => {
  it("finds nothing unused in the real tree", () => {
    const result = runKnip(repo);
    expect(result.output.trim()).toBe("");
    expect(result.ok).toBe(true);
  }, 120_000);

  it("reports an unused file, export and dependency", () => {
    const dir = mkdtempSync(join(tmpdir(), "knip-"));
    try {
      mkdirSync(join(dir, "src"));
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: "probe", type: "module", main: "src/index.ts", dependencies: { "left-pad": "1.3.0" } }),
      );
      writeFileSync(join(dir, "src/index.ts"), 'import { used } from "./lib.ts";\nconsole.log(used);\n');
      writeFileSync(join(dir, "src/lib.ts"), "export const used = 1;\nexport const forgotten = 2;\n");
      writeFileSync(join(dir, "src/orphan.ts"), "export const nobody = 3;\n");
      const result = runKnip(dir);
      expect(result.ok).toBe(false);
      expect(result.output).toContain("src/orphan.ts");
      expect(result.output).toContain("forgotten");
      expect(result.output).toContain("left-pad");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
