import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const run = promisify(execFile);
const service = useTestService();

/** `npm run admin -- …` runs exactly this: the built CLI, JSON on stdout, errors as JSON on stderr. */
async function admin(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const env = { ...process.env, DATABASE_URL: service().database.url, LOG_LEVEL: "error" };
  try {
    const { stdout } = await run(process.execPath, ["server/dist/cli/admin.js", ...args], { env });
    return { code: 0, json: JSON.parse(stdout) };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { code: failure.code, json: JSON.parse(failure.stderr.trim().split("\n").at(-1) ?? "{}") };
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

  it("creates an invite for one address", async () => {
    const result = await admin("invite:create", "--email", " New.User@Example.com ");
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ email: "new.user@example.com", invite_code: expect.any(String) });
    expect(Date.parse(String(result.json.expires_at))).toBeGreaterThan(Date.now());
  });

  it.each([
    [
      ["api-key:create", "--workspace", "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K", "--name", "x", "--scopes", "everything"],
      /scopes must be/,
    ],
    [["limits:clear", "--limiter", "nope", "--key", "x"], /unknown limiter/],
    [["workspace:create", "--name", "Acme"], /--owner-email is required/],
    [["frobnicate"], /usage/],
  ])("refuses %j with exit code 2 and a JSON error", async (args, message) => {
    const result = await admin(...args);
    expect(result.code).toBe(2);
    expect(String(result.json.error)).toMatch(message);
  });
});
