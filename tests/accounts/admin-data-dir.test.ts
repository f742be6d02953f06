/**
 * The admin CLI on the embedded default (no DATABASE_URL): it finds the service's running PostgreSQL under DATA_DIR,
 * whose default is the service's (`.data` in the folder it runs from), and when it has to start one of its own it says
 * so on stderr, with where, instead of answering from an empty database as if nothing were wrong.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { startNotice } from "../../server/src/cli/embedded-state.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";

const run = promisify(execFile);
const ADMIN = resolve("server/dist/cli/admin.js");
const home = mkdtempSync(join(tmpdir(), "admin-data-dir-"));
// As root, PostgreSQL runs as the `postgres` user, which must be able to reach DATA_DIR inside this folder.
chmodSync(home, 0o755);
const dataDir = join(home, ".data");
let server: ServerProcess | undefined;

/** `npm run admin -- …` as a newcomer runs it: no settings but the ones given, from the folder `cwd`. */
async function admin(cwd: string, env: Record<string, string>, ...args: string[]) {
  const { stdout, stderr } = await run(process.execPath, [ADMIN, ...args], {
    cwd,
    env: bareEnv({ LOG_LEVEL: "warn", ...env }),
  });
  return { json: JSON.parse(stdout) as unknown, stderr };
}

afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("admin CLI without DATABASE_URL", () => {
  it("says on stderr that it created a new, empty database, and where", async () => {
    const result = await admin(home, {}, "outbox:list");
    expect(result.json).toEqual([]);
    expect(result.stderr).toContain(startNotice("absent", dataDir));
    expect(result.stderr).toContain("run the admin command with the same setting");
  }, 120_000);

  it("says on stderr that it started the stopped one for the command", async () => {
    const result = await admin(home, { DATA_DIR: dataDir }, "outbox:list");
    expect(result.json).toEqual([]);
    expect(result.stderr).toContain(startNotice("stopped", dataDir));
  }, 120_000);

  it("finds the running service's PostgreSQL under the same default DATA_DIR, and says nothing", async () => {
    server = await runServer([], bareEnv({ DATA_DIR: dataDir, PORT: "0" }));
    const email = `first.hour.${Date.now()}@example.com`;
    const registered = await fetch(`${server.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "correct horse battery staple" }),
    });
    expect(registered.status).toBeLessThan(300);
    // The verification e-mail is written by a background job: wait for it in the service's outbox.
    let mail: { to: string; subject: string }[] = [];
    let stderr = "";
    for (let i = 0; i < 50 && mail.length === 0; i++) {
      // No DATA_DIR: the default, `.data` in the folder the command runs from, where the service keeps its data.
      ({ json: mail, stderr } = (await admin(home, {}, "outbox:list", "--email", email)) as {
        json: typeof mail;
        stderr: string;
      });
      if (mail.length === 0) await new Promise((done) => setTimeout(done, 200));
    }
    expect(mail).toEqual([expect.objectContaining({ to: email })]);
    expect(stderr).not.toContain("admin:");
  }, 180_000);
});
