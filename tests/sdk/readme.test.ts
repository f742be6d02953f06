/**
 * The SDK README's first example, run as a new user runs it: saved as a file and started with node, with the key the
 * service's README has them create (`leads:read`, `leads:write`), against the service. It must finish, and say what it
 * did.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });
const root = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repository, so that `@service/sdk` resolves to the built package as an installed one would.
const dir = join(root, ".tmp", `sdk-readme-${process.pid}`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("runs the first example with a leads:read + leads:write key, and prints what it did", async () => {
  const { key } = await workspaceWithKey(service(), ["leads:read", "leads:write"]);
  const readme = readFileSync(join(root, "sdk/README.md"), "utf8");
  const first = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(first).toContain('from "@service/sdk"');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "first.ts"), first ?? "");
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", join(dir, "first.ts")], {
    cwd: root,
    env: { ...process.env, API_KEY: key, API_URL: service().url },
    timeout: 30_000,
  });
  const lines = stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^created lead_\w+ \(ada\+\d+@example\.com\), status new$/);
  expect(lines[1]).toBe("moved it to qualified (version 2)");
  expect(lines[2]).toBe("found it among the qualified leads: Ada Lovelace");
  expect(lines[3]).toBe("1 qualified lead(s) in the workspace");
});
