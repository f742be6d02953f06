/** API keys of a workspace: created with scopes, shown once, stored as a hash, revocable and rotatable. */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { instantOf } from "../../lib/date-time.ts";
import { newId } from "../../lib/ids.ts";
import { sha256 } from "../../lib/secrets.ts";
import { isLiveScope } from "../modes.ts";
import * as store from "./api-keys.store.ts";
import { displayPrefix, generateApiKey } from "./key-format.ts";

export type ApiKey = components["schemas"]["ApiKey"];
export type ApiKeyWithSecret = components["schemas"]["ApiKeyWithSecret"];
export type Scope = components["schemas"]["Scope"];

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toApiKey(row: store.ApiKeyRow): ApiKey {
  return {
    id: row.id,
    object: "api_key",
    livemode: isLiveScope(row.workspace_id),
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

/** The expiry a new key asks for (none: it never expires), or 400 `VALIDATION_FAILED` unless it is after `now`. */
export function requestedExpiry(expiresAt: string | undefined, now: Date): Date | null {
  const at = expiresAt ? instantOf(expiresAt) : null;
  if (at && at.getTime() <= now.getTime()) {
    throw new AppError("VALIDATION_FAILED", {
      errors: [{ path: "body.expires_at", message: "must be in the future" }],
    });
  }
  return at;
}

/** 409 `INVALID_STATE_TRANSITION` unless the key still works at `now`: only a live key is rotated. */
export function assertRotatable(key: Pick<store.ApiKeyRow, "revoked_at" | "expires_at">, now: Date): void {
  if (key.revoked_at || (key.expires_at && key.expires_at.getTime() <= now.getTime())) {
    throw new AppError("INVALID_STATE_TRANSITION", { detail: "A revoked or expired key cannot be rotated." });
  }
}

async function insertNewKey(
  db: Queryable,
  input: { workspaceId: string; name: string; scopes: Scope[]; expiresAt: Date | null; rotatedFrom?: string },
): Promise<ApiKeyWithSecret> {
  // A key's mode is its scope's: a test scope's keys are `sk_test_` keys.
  const key = generateApiKey(isLiveScope(input.workspaceId) ? "live" : "test");
  const row = await store.insertKey(db, {
    id: newId("apiKey"),
    workspaceId: input.workspaceId,
    name: input.name,
    prefix: displayPrefix(key),
    secretHash: sha256(key),
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expiresAt,
    ...(input.rotatedFrom ? { rotatedFrom: input.rotatedFrom } : {}),
  });
  return { ...toApiKey(row), key };
}

/**
 * `onKeyChanged` runs after a revocation or rotation commits and before it is answered: the process that made the
 * change drops the key from its own cache at once (other processes learn it by NOTIFY).
 */
export function createApiKeyService(pool: pg.Pool, options: { onKeyChanged?: (keyId: string) => void } = {}) {
  const changed = (keyId: string) => options.onKeyChanged?.(keyId);
  return {
    async create(
      workspaceId: string,
      input: { name: string; scopes: Scope[]; expires_at?: string },
    ): Promise<ApiKeyWithSecret> {
      const expiresAt = requestedExpiry(input.expires_at, new Date());
      return insertNewKey(pool, { workspaceId, name: input.name, scopes: input.scopes, expiresAt });
    },

    list(workspaceId: string, query: PageParams) {
      return store.listKeyRows(pool, workspaceId, query, toApiKey);
    },

    async get(workspaceId: string, id: string): Promise<ApiKey> {
      const row = await store.getKey(pool, workspaceId, id);
      if (!row) throw new AppError("API_KEY_NOT_FOUND");
      return toApiKey(row);
    },

    async revoke(workspaceId: string, id: string): Promise<void> {
      if (!(await store.revokeKey(pool, workspaceId, id))) throw new AppError("API_KEY_NOT_FOUND");
      changed(id);
    },

    /** A new key with the same name and scopes; the old one keeps working for the overlap, then expires. */
    async rotate(workspaceId: string, id: string, overlapSeconds: number): Promise<ApiKeyWithSecret> {
      const fresh = await withTransaction(pool, async (client) => {
        const old = await store.getKey(client, workspaceId, id, true);
        if (!old) throw new AppError("API_KEY_NOT_FOUND");
        assertRotatable(old, new Date());
        const fresh = await insertNewKey(client, {
          workspaceId,
          name: old.name,
          scopes: old.scopes,
          expiresAt: null,
          rotatedFrom: old.id,
        });
        await store.expireAfter(client, old.id, overlapSeconds);
        return fresh;
      });
      changed(id);
      return fresh;
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
