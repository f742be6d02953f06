/**
 * The pure rules of the account flows: the password policy beyond length, the session's CSRF token, and the
 * session as the console sees it. (The flows themselves, with their limits and jobs, are tested end to end in
 * tests/accounts.)
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { EmailAddress } from "../../lib/email-address.ts";
import { csrfTokenFor, passwordProblem, toSession } from "./auth.service.ts";
import type { SessionRow } from "./auth.store.ts";

const ADA: EmailAddress = { address: "ada@example.com", domain: "example.com" };

describe("passwordProblem", () => {
  it.each<[string, string, string | undefined]>([
    ["a long passphrase", "correct horse battery staple", undefined],
    ["the address itself", "ada@example.com", "must not be the e-mail address"],
    ["the address in capitals", "ADA@Example.COM", "must not be the e-mail address"],
    ["the local part", "Ada", "must not be the e-mail address"],
    ["a run of one character", "aaaaaaaaaaaa", "must use at least 4 different characters"],
    ["two characters repeated", "abababababab", "must use at least 4 different characters"],
    ["three characters repeated", "abcabcabcabc", "must use at least 4 different characters"],
    ["four different characters", "abcdabcdabcd", undefined],
  ])("%s → %s", (_, password, want) => {
    expect(passwordProblem(password, ADA)).toBe(want);
  });
});

describe("csrfTokenFor", () => {
  it("is the session token's HMAC-SHA256 of 'csrf', base64url: stable for one session, no storage", () => {
    const token = "sid-value-1";
    const want = createHmac("sha256", token).update("csrf").digest("base64url");
    expect(csrfTokenFor(token)).toBe(want);
    expect(csrfTokenFor(token)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("differs between sessions, so one session's token does not pass another's check", () => {
    expect(csrfTokenFor("sid-value-1")).not.toBe(csrfTokenFor("sid-value-2"));
  });
});

describe("toSession", () => {
  const row: SessionRow = {
    user_id: "usr_01JD3Z7J1B2C3D4E5F6G7H8J9K",
    expires_at: new Date("2026-11-15T09:00:00.000Z"),
    email: "ada@example.com",
    name: "Ada",
    user_created_at: new Date("2026-10-01T09:00:00.000Z"),
    workspace_id: "ws_01JD3Z7E1B2C3D4E5F6G7H8J9K",
    workspace_name: "Ada's workspace",
    workspace_created_at: new Date("2026-10-01T09:00:00.000Z"),
  };

  it("answers the user (verified: only verified addresses have accounts), the workspace and the CSRF token", () => {
    expect(toSession(row, "sid-value-1")).toEqual({
      object: "session",
      user: {
        id: row.user_id,
        object: "user",
        email: "ada@example.com",
        name: "Ada",
        email_verified: true,
        created_at: "2026-10-01T09:00:00.000Z",
      },
      workspace: {
        id: row.workspace_id,
        object: "workspace",
        name: "Ada's workspace",
        created_at: "2026-10-01T09:00:00.000Z",
      },
      csrf_token: csrfTokenFor("sid-value-1"),
      expires_at: "2026-11-15T09:00:00.000Z",
    });
  });
});
