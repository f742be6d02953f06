/**
 * The API-key check that `http/authenticate.ts` is given: a well-formed key (the checksum refuses mistyped and
 * invented keys before any lookup) whose SHA-256 names a live key, through the cache that revocation clears at
 * once. No KDF: keys carry 190 random bits. A use is noted for `last_used_at`, batched.
 */
import { sha256 } from "../../lib/secrets.ts";
import type { Principal } from "../principal.ts";
import type { ApiKeyCache } from "./key-cache.ts";
import { isWellFormedApiKey } from "./key-format.ts";
import type { LastUsedTracker } from "./last-used.ts";

export type VerifyKey = (token: string) => Promise<Principal | undefined>;

export function keyVerifier(deps: { keys: ApiKeyCache; lastUsed: LastUsedTracker }): VerifyKey {
  return async (token) => {
    const row = isWellFormedApiKey(token) ? await deps.keys.find(sha256(token)) : undefined;
    if (!row) return undefined;
    deps.lastUsed.touch(row.id, row.last_used_at);
    return { kind: "api_key", id: row.id, workspaceId: row.workspace_id, scopes: row.scopes };
  };
}
