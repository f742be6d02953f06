import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const run = promisify(execFile);
const service = useTestService();

interface Answer {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

/** `npm run admin -- …` runs exactly this: the built CLI, one line of JSON on stdout, plain text on stderr. */
async function admin(...args: string[]): Promise<Answer> {
  const env = { ...process.env, DATABASE_URL: service().database.url, LOG_LEVEL: "error" };
  try {
    const { stdout, stderr } = await run(process.execPath, ["server/dist/cli/admin.js", ...args], { env });
    return { code: 0, stdout, stderr, json: stdout ? JSON.parse(stdout) : {} };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr, json: {} };
  }
}

describe("admin CLI", () => {
  it("creates a workspace and an API key that works on /v1 with its scopes", async () => {
    const workspace = await admin("workspace:create", "--name", "Acme", "--owner-email", uniqueEmail("ops"));
    expect(workspace.code).toBe(0);
    expect(workspace.json.workspace_id).toMatch(/^ws_[0-9A-HJKMNP-TV-Z]{26}$/);
    const key = await admin(
      "api-key:create",
      "--workspace",
      String(workspace.json.workspace_id),
      "--name",
      "zapier",
      "--scopes",
      "events:read,leads:read",
    );
    expect(key.code).toBe(0);
    expect(key.json).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk_live_/),
      scopes: ["events:read", "leads:read"],
    });
    const call = await service().fetch("/v1/events", { headers: { authorization: `Bearer ${key.json.key}` } });
    expect(call.status, "authenticated, with the scope").toBe(200);
    const denied = await service().fetch("/v1/tickets", { headers: { authorization: `Bearer ${key.json.key}` } });
    expect(denied.status).toBe(403);
  });

  it("creates a test mode key with --mode test, which reaches the workspace's test data only", async () => {
    const workspace = await admin("workspace:create", "--name", "Modes", "--owner-email", uniqueEmail("modes"));
    const id = String(workspace.json.workspace_id);
    const scopes = ["--scopes", "leads:read,leads:write"];
    const test = await admin("api-key:create", "--workspace", id, "--name", "ci", ...scopes, "--mode", "test");
    const live = await admin("api-key:create", "--workspace", id, "--name", "prod", ...scopes);
    expect(test.json).toMatchObject({ key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{38}$/), livemode: false });
    expect(live.json).toMatchObject({ key: expect.stringMatching(/^sk_live_/), livemode: true });
    const created = await service().fetch("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${test.json.key}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "test.only@example.com" }),
    });
    const lead = (await created.json()) as { id: string; livemode: boolean };
    expect([created.status, lead.livemode]).toEqual([201, false]);
    const fromLive = await service().fetch(`/v1/leads/${lead.id}`, {
      headers: { authorization: `Bearer ${live.json.key}` },
    });
    expect(fromLive.status).toBe(404);
    const wrong = await admin("api-key:create", "--workspace", id, "--name", "x", ...scopes, "--mode", "sandbox");
    expect([wrong.code, wrong.stderr]).toEqual([1, "admin: mode must be live or test\n"]);
  });

  it("revokes a key at once for the serving process", async () => {
    const workspace = await admin("workspace:create", "--name", "Revoke", "--owner-email", uniqueEmail("rev"));
    const created = await admin(
      "api-key:create",
      ...["--workspace", String(workspace.json.workspace_id), "--name", "gone", "--scopes", "leads:read"],
    );
    const call = () => service().fetch("/v1/leads", { headers: { authorization: `Bearer ${created.json.key}` } });
    expect((await call()).status).toBe(200);
    const revoked = await admin("api-key:revoke", "--id", String(created.json.id));
    expect(revoked.json).toEqual({ id: created.json.id, revoked_at: expect.stringMatching(/^\d{4}-/) });
    expect((await call()).status).toBe(401);
    const unknown = await admin("api-key:revoke", "--id", "key_01JD3Z7H1B2C3D4E5F6G7H8J9K");
    expect([unknown.code, unknown.stderr]).toEqual([1, "admin: no API key key_01JD3Z7H1B2C3D4E5F6G7H8J9K\n"]);
  });

  it("creates an invite for one address", async () => {
    const result = await admin("invite:create", "--email", " New.User@Example.com ");
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ email: "new.user@example.com", invite_code: expect.any(String) });
    expect(Date.parse(String(result.json.expires_at))).toBeGreaterThan(Date.now());
  });

  it("lists the workspaces newest first, with the id api-key:create needs", async () => {
    const owner = uniqueEmail("owner");
    const created = await admin("workspace:create", "--name", "Listed", "--owner-email", owner);
    const listed = await admin("workspace:list", "--limit", "5");
    expect(listed.code).toBe(0);
    expect(listed.stdout.endsWith("}]\n")).toBe(true);
    expect((listed.json as unknown as Record<string, unknown>[])[0]).toEqual({
      workspace_id: created.json.workspace_id,
      name: "Listed",
      owner_email: owner,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it.each([["--help"], ["help"], [], ["limits:clear", "--help"]])(
    "prints its usage in plain text on stderr for %j, with each limiter's key format",
    async (...args) => {
      const result = await admin(...args);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^usage: npm run admin -- <command>/);
      for (const text of ["workspace:list", "an IPv4 address", "/64", "an e-mail address", "key_", "leads:write"]) {
        expect(result.stderr).toContain(text);
      }
    },
  );

  it.each([
    [["limits:clear", "--limiter", "register-ip"], "admin: --key is required", 2],
    [["workspace:create", "--name", "Acme"], "admin: --owner-email is required", 2],
    [["frobnicate"], "admin: unknown command frobnicate", 2],
    [["workspace:list", "--nope"], "admin: Unknown option '--nope'", 2],
    [
      ["api-key:create", "--workspace", "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K", "--name", "x", "--scopes", "everything"],
      "admin: scopes must be",
      1,
    ],
    [["limits:clear", "--limiter", "nope", "--key", "x"], "admin: unknown limiter nope", 1],
  ])("refuses %j in plain text on stderr", async (args, message, code) => {
    const result = await admin(...args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe("");
    expect(result.stderr.startsWith(message)).toBe(true);
    // A usage error shows the usage after its message; another failure only its message.
    expect(result.stderr.includes("usage: npm run admin")).toBe(code === 2);
  });
});
