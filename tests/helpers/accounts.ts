/**
 * Accounts for tests, made through the real endpoints (register, the e-mail in the outbox, verify, login), and
 * API keys made with the admin CLI's functions.
 */
import { expect } from "vitest";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import type { TestService } from "./service.ts";

let counter = 0;

/** A unique address per call, so that test files and runs never share counters or accounts. */
export function uniqueEmail(label = "user"): string {
  counter += 1;
  return `${label}.${Date.now().toString(36)}.${counter}@example.com`;
}

/** The newest e-mail of a kind to an address, once the worker has written it to the outbox. */
export async function waitForMail(service: TestService, to: string, kind: string, after = 0) {
  for (let i = 0; i < 200; i++) {
    const { rows } = await service.service.db.pool.query<{ id: string; text_body: string }>(
      "SELECT id, text_body FROM outbox WHERE to_address = $1 AND kind = $2 AND id > $3 ORDER BY id DESC LIMIT 1",
      [to, kind, after],
    );
    if (rows[0]) return { id: Number(rows[0].id), text: rows[0].text_body };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${kind} e-mail to ${to}`);
}

export function tokenIn(text: string): string {
  const token = /token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
  if (!token) throw new Error(`no token in ${text}`);
  return token;
}

export interface SignedIn {
  cookie: string;
  csrf: string;
  workspaceId: string;
  userId: string;
}

export async function registerAndVerify(
  service: TestService,
  email: string,
  password = "correct horse battery",
): Promise<void> {
  const registered = await service.fetch("/api/auth/register", json({ email, password }));
  expect(registered.status).toBe(202);
  const mail = await waitForMail(service, email, "verify");
  const verified = await service.fetch("/api/auth/verify", json({ token: tokenIn(mail.text) }));
  expect(verified.status).toBe(200);
}

export async function signIn(
  service: TestService,
  email: string,
  password = "correct horse battery",
): Promise<SignedIn> {
  const response = await service.fetch("/api/auth/login", json({ email, password }));
  expect(response.status).toBe(200);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const session = (await response.json()) as { csrf_token: string; workspace: { id: string }; user: { id: string } };
  return { cookie, csrf: session.csrf_token, workspaceId: session.workspace.id, userId: session.user.id };
}

let clients = 0;

/**
 * A JSON request from a client address of its own (an `X-Forwarded-For` from TEST-NET-2/3, honoured by services
 * started with `TRUST_PROXY=loopback`), so that flows tested here never run into the per-IP limits.
 */
export function json(body: unknown, headers: Record<string, string> = {}, method = "POST"): RequestInit {
  clients += 1;
  const client = `${clients % 2 ? "198.51.100" : "203.0.113"}.${((clients >> 1) % 254) + 1}`;
  return {
    method,
    headers: { "content-type": "application/json", "x-forwarded-for": client, ...headers },
    body: JSON.stringify(body),
  };
}

/** A workspace with an API key of these scopes, live or test (the admin CLI's path). */
export async function workspaceWithKey(service: TestService, scopes: string[], mode: "live" | "test" = "live") {
  const workspace = await createWorkspace(service.service.db.pool, { name: "Test", ownerEmail: uniqueEmail("owner") });
  const key = await createApiKey(service.service.db.pool, {
    workspaceId: workspace.workspace_id,
    name: "test",
    scopes,
    mode,
  });
  return { workspaceId: workspace.workspace_id, key: key.key, keyId: key.id };
}
