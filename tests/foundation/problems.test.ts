import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { useTestService } from "../helpers/service.ts";

const BODY_LIMIT_BYTES = 4096;
const service = useTestService({ BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) });

const json = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body,
});

function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

interface Case {
  name: string;
  path: string;
  init?: RequestInit;
  want: { status: number; code: string; headers?: Record<string, string | RegExp> };
}

const cases: Case[] = [
  { name: "an unknown route", path: "/v1/nothing-here", want: { status: 404, code: "ROUTE_NOT_FOUND" } },
  { name: "an unknown top-level path", path: "/nothing-here", want: { status: 404, code: "ROUTE_NOT_FOUND" } },
  {
    name: "a wrong method, naming the allowed ones",
    path: "/v1/leads",
    init: { method: "PUT" },
    want: { status: 405, code: "METHOD_NOT_ALLOWED", headers: { allow: /^(GET, POST|POST, GET), HEAD$/ } },
  },
  {
    name: "a body that is not JSON",
    path: "/api/auth/register",
    init: { method: "POST", headers: { "content-type": "text/plain" }, body: "email=a@example.com" },
    want: { status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  },
  {
    name: "a multipart form",
    path: "/api/auth/register",
    init: { method: "POST", body: formOf({ email: "a@example.com", password: "correct horse battery" }) },
    want: { status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  },
  {
    name: "malformed JSON",
    path: "/api/auth/register",
    init: json('{"email": "ada@example.com",'),
    want: { status: 400, code: "MALFORMED_JSON" },
  },
  {
    name: "a JSON scalar where an object is expected",
    path: "/api/auth/register",
    init: json('"ada@example.com"'),
    want: { status: 400, code: "MALFORMED_JSON" },
  },
  {
    name: "a body over the size limit",
    path: "/api/auth/register",
    init: json(JSON.stringify({ email: "ada@example.com", password: "x".repeat(BODY_LIMIT_BYTES) })),
    want: { status: 413, code: "PAYLOAD_TOO_LARGE" },
  },
  {
    name: "a missing /v1 credential, with the Bearer challenge",
    path: "/v1/leads",
    want: { status: 401, code: "UNAUTHENTICATED", headers: { "www-authenticate": /^Bearer / } },
  },
  {
    name: "a malformed Authorization header",
    path: "/v1/leads",
    init: { headers: { authorization: "Basic dXNlcjpwYXNz" } },
    want: { status: 401, code: "UNAUTHENTICATED", headers: { "www-authenticate": /^Bearer / } },
  },
  {
    name: "a session operation without the session cookie",
    path: "/api/workspace",
    want: { status: 401, code: "UNAUTHENTICATED" },
  },
];

describe("problem+json for every failure the HTTP layer catches", () => {
  it.each(cases)("answers $want.status $want.code for $name", async ({ path, init, want }) => {
    const response = await service().fetch(path, init);
    await expectProblem(response, want.status, want.code);
    for (const [name, value] of Object.entries(want.headers ?? {})) {
      expect(response.headers.get(name)).toMatch(value);
    }
  });

  it("lists each failed field of a request that breaks the contract", async () => {
    const response = await service().fetch(
      "/api/auth/register",
      json(JSON.stringify({ email: "not-an-address", password: "short", surprise: true })),
    );
    const body = await expectProblem(response, 400, "VALIDATION_FAILED");
    const paths = (body.errors as { path: string }[]).map((error) => error.path);
    expect(paths).toEqual(expect.arrayContaining(["body.email", "body.password"]));
    expect(paths.some((path) => path.startsWith("body"))).toBe(true);
  });

  it("refuses an unknown property instead of ignoring it", async () => {
    const response = await service().fetch(
      "/api/auth/forgot",
      json(JSON.stringify({ email: "ada@example.com", is_admin: true })),
    );
    const body = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(JSON.stringify(body.errors)).toContain("is_admin");
  });

  // Past authentication, which comes first (api-router.ts): a key the operation admits.
  const withKey = async () => ({
    headers: { authorization: `Bearer ${(await workspaceWithKey(service(), ["leads:read"])).key}` },
  });

  it("refuses a malformed id in a path", async () => {
    const response = await service().fetch("/v1/leads/not-a-lead-id", await withKey());
    const body = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(JSON.stringify(body.errors)).toContain("lead_id");
  });

  it("refuses an unknown query parameter", async () => {
    const response = await service().fetch("/v1/leads?limt=5", await withKey());
    await expectProblem(response, 400, "VALIDATION_FAILED");
  });

  it("never answers HTML, even for a path with odd characters", async () => {
    const response = await service().fetch("/%E0%A4%A");
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});
