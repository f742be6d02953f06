/**
 * The server's layers point one way (server/.dependency-cruiser.cjs): checked on the real tree, and shown to fail
 * on a tree with one planted upward import and one cycle.
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

  it("refuse an upward import and a cycle", () => {
    const dir = mkdtempSync(join(tmpdir(), "layers-"));
    try {
      cpSync(join(repo, "server", ".dependency-cruiser.cjs"), join(dir, "server", ".dependency-cruiser.cjs"));
      cpSync(join(repo, "server", "tsconfig.json"), join(dir, "server", "tsconfig.json"));
      cpSync(join(repo, "tsconfig.json"), join(dir, "tsconfig.json"));
      for (const folder of ["lib", "domain/leads", "http"])
        mkdirSync(join(dir, "server", "src", folder), { recursive: true });
      writeFileSync(
        join(dir, "server/src/lib/cursor.ts"),
        'import { list } from "../domain/leads/leads.service.ts";\nexport const c = list;\n',
      );
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
      expect(result.output).toContain("ground-imports-above");
      expect(result.output).toContain("no-circular");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
