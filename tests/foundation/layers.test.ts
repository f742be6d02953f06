/**
 * The server's layers point one way (server/.dependency-cruiser.cjs): checked on the real tree, and shown to fail
 * on a tree with planted upward imports, a module outside every layer, and a cycle.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = new URL("../..", import.meta.url).pathname;
const depcruise = join(repo, "node_modules", ".bin", "depcruise");

function cruise(cwd: string): { ok: boolean; output: string } {
  try {
    const output = execFileSync(
      depcruise,
      ["server/src", "--config", "server/.dependency-cruiser.cjs", "--output-type", "err"],
      {
        cwd,
        encoding: "utf8",
        stdio: "pipe",
      },
    );
    return { ok: true, output };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failure.stdout ?? ""}${failure.stderr ?? ""}` };
  }
}

describe("the server's layers", () => {
  it("point one way in the real tree", () => {
    const result = cruise(repo);
    expect(result.output).toContain("no dependency violations found");
    expect(result.ok).toBe(true);
  });

  it("refuse upward imports (settings included), a module outside the layers, and a cycle", () => {
    const dir = mkdtempSync(join(tmpdir(), "layers-"));
    try {
      cpSync(join(repo, "server", ".dependency-cruiser.cjs"), join(dir, "server", ".dependency-cruiser.cjs"));
      cpSync(join(repo, "server", "tsconfig.json"), join(dir, "server", "tsconfig.json"));
      cpSync(join(repo, "tsconfig.json"), join(dir, "tsconfig.json"));
      for (const folder of ["lib", "domain/leads", "http", "rate-limit"])
        mkdirSync(join(dir, "server", "src", folder), { recursive: true });
      writeFileSync(
        join(dir, "server/src/lib/cursor.ts"),
        'import { list } from "../domain/leads/leads.service.ts";\nexport const c = list;\n',
      );
      // Settings are ground like lib/: the rate-limit rules above them are out of reach too, with no exception.
      writeFileSync(
        join(dir, "server/src/config.ts"),
        'import { LIMIT_RULES } from "./rate-limit/policy.ts";\nexport const rules = LIMIT_RULES;\n',
      );
      writeFileSync(join(dir, "server/src/rate-limit/policy.ts"), "export const LIMIT_RULES = {};\n");
      // A file that matches no layer would escape every rule.
      writeFileSync(join(dir, "server/src/stray.ts"), "export const s = 1;\n");
      writeFileSync(join(dir, "server/src/lib/ids.ts"), 'import { s } from "../stray.ts";\nexport const i = s;\n');
      writeFileSync(
        join(dir, "server/src/domain/leads/leads.service.ts"),
        'import { a } from "./leads.store.ts";\nexport const list = a;\n',
      );
      writeFileSync(
        join(dir, "server/src/domain/leads/leads.store.ts"),
        'import { list } from "./leads.service.ts";\nexport const a = 1;\nexport const b = list;\n',
      );
      const result = cruise(dir);
      expect(result.ok).toBe(false);
      expect(result.output).toContain(
        "ground-imports-above: server/src/lib/cursor.ts → server/src/domain/leads/leads.service.ts",
      );
      expect(result.output).toContain("ground-imports-above: server/src/config.ts → server/src/rate-limit/policy.ts");
      expect(result.output).toContain("module-outside-the-layers: server/src/lib/ids.ts → server/src/stray.ts");
      expect(result.output).toContain("no-circular");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
