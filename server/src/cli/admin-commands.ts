/**
 * What the admin CLI does, as functions over the database and the limiters (the tests call them too).
 */
import type pg from "pg";
import { withTransaction } from "../db/transaction.ts";
import { createApiKeyService, type Scope } from "../domain/api-keys/api-keys.service.ts";
import { workspaceOfKey } from "../domain/api-keys/api-keys.store.ts";
import { findUserByEmail, insertInvite, insertUser } from "../domain/auth/auth.store.ts";
import { scopeOf } from "../domain/modes.ts";
import { insertWorkspace, listWorkspaceRows, workspaceExists } from "../domain/workspaces/workspaces.store.ts";
import { loadOpenApiDocument } from "../http/openapi-document.ts";
import { clientIpKey } from "../lib/client-ip.ts";
import { normalizeEmail } from "../lib/email-address.ts";
import { newId } from "../lib/ids.ts";
import { LIMITER_NAMES, type LimiterName } from "../lib/limiter-names.ts";
import { randomToken, sha256 } from "../lib/secrets.ts";
import { listOutbox } from "../mail/outbox.ts";
import type { Limiters } from "../rate-limit/limiters.ts";

export class CommandError extends Error {}

function email(raw: string): string {
  const normalized = normalizeEmail(raw);
  if (!normalized) throw new CommandError(`not an e-mail address: ${raw}`);
  return normalized.address;
}

/** The scopes the contract declares (`Scope` in spec/models/api-keys.tsp). */
export function knownScopes(): string[] {
  const schemas = (loadOpenApiDocument().doc.components as { schemas: Record<string, { enum?: string[] }> }).schemas;
  return schemas.Scope?.enum ?? [];
}

/** The newest workspaces, with their owner's address: where an operator finds the `ws_…` id a key needs. */
export async function listWorkspaces(pool: pg.Pool, input: { limit: number }) {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > 1000) {
    throw new CommandError("--limit must be a whole number from 1 to 1000");
  }
  return (await listWorkspaceRows(pool, input.limit)).map((row) => ({
    workspace_id: row.id,
    name: row.name,
    owner_email: row.owner_email,
    created_at: row.created_at.toISOString(),
  }));
}

/** A workspace and its owner, verified, without a password (they set one through "forgot"). */
export async function createWorkspace(pool: pg.Pool, input: { name: string; ownerEmail: string }) {
  const ownerEmail = email(input.ownerEmail);
  return withTransaction(pool, async (client) => {
    if (await findUserByEmail(client, ownerEmail)) throw new CommandError(`${ownerEmail} already has an account`);
    const workspaceId = newId("workspace");
    const userId = newId("user");
    await insertWorkspace(client, { id: workspaceId, name: input.name });
    await insertUser(client, { id: userId, email: ownerEmail, name: null, passwordHash: null, workspaceId });
    return { workspace_id: workspaceId, user_id: userId };
  });
}

export async function createApiKey(
  pool: pg.Pool,
  input: { workspaceId: string; name: string; scopes: string[]; expiresAt?: string; mode?: string },
) {
  const known = knownScopes();
  const unknown = input.scopes.filter((scope) => !known.includes(scope));
  if (input.scopes.length === 0 || unknown.length > 0) {
    throw new CommandError(`scopes must be a comma-separated list of: ${known.join(", ")}`);
  }
  const mode = input.mode ?? "live";
  if (mode !== "live" && mode !== "test") throw new CommandError("mode must be live or test");
  if (!(await workspaceExists(pool, input.workspaceId))) throw new CommandError(`no workspace ${input.workspaceId}`);
  const key = await createApiKeyService(pool).create(scopeOf(input.workspaceId, mode), {
    name: input.name,
    scopes: input.scopes as Scope[],
    ...(input.expiresAt ? { expires_at: input.expiresAt } : {}),
  });
  return { id: key.id, key: key.key, scopes: key.scopes, livemode: key.livemode };
}

/** Revokes a key at once, in every process (the revocation's NOTIFY); answers when it was revoked. */
export async function revokeApiKey(pool: pg.Pool, input: { id: string }) {
  const workspaceId = await workspaceOfKey(pool, input.id);
  if (!workspaceId) throw new CommandError(`no API key ${input.id}`);
  await createApiKeyService(pool).revoke(workspaceId, input.id);
  const key = await createApiKeyService(pool).get(workspaceId, input.id);
  return { id: key.id, revoked_at: key.revoked_at };
}

/** Clears one limiter's counter for one key (an IP or an e-mail, normalised as the limiter keys it). */
export async function clearLimit(limiters: Limiters, input: { limiter: string; key: string }) {
  if (!LIMITER_NAMES.includes(input.limiter as LimiterName)) {
    throw new CommandError(`unknown limiter ${input.limiter}; one of: ${LIMITER_NAMES.join(", ")}`);
  }
  const name = input.limiter as LimiterName;
  const keyedBy = limiters.rule(name).keyedBy;
  const key =
    keyedBy === "email" ? email(input.key) : keyedBy === "ip" ? clientIpKey(input.key.trim()) : input.key.trim();
  return { cleared: await limiters.clear(name, key) };
}

export async function createInvite(pool: pg.Pool, input: { email: string; ttlDays: number }) {
  const code = randomToken(18);
  const expiresAt = await insertInvite(pool, {
    codeHash: sha256(code),
    email: email(input.email),
    ttlSeconds: input.ttlDays * 86400,
  });
  return { email: email(input.email), invite_code: code, expires_at: expiresAt.toISOString() };
}

/** The newest e-mails of the outbox (no `SMTP_URL`): to, subject, link, created. */
export async function listMail(pool: pg.Pool, input: { email?: string; limit: number }) {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > 1000) {
    throw new CommandError("--limit must be a whole number from 1 to 1000");
  }
  return listOutbox(pool, { limit: input.limit, ...(input.email ? { email: email(input.email) } : {}) });
}
