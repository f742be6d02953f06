/**
 * An in-process cache of API key lookups, so that an authenticated call costs no database round trip for the key
 * (one round trip is a large share of a /v1 call: on loopback, PostgreSQL's wake-up is paid by the sender).
 *
 * Revocation and rotation stay immediate:
 * - the revoking process drops the key itself before it answers (`forget`);
 * - every other process LISTENs on `api_key_changed` (sent in the revoking transaction, delivered on commit) and
 *   drops the key when the notification arrives;
 * - a lookup that was in flight when a key changed must not put the old row back: every change bumps a generation,
 *   and a lookup caches its row only if no change happened while it ran;
 * - while the LISTEN connection is down nothing is cached (a missed notification could leave a revoked key), and
 *   the cache starts empty after each reconnection. The TTL bounds staleness in any case; a key's own expiry is
 *   checked on every hit.
 */
import type pg from "pg";
import type { Logger } from "pino";
import type { ConnectionSettings } from "../../db/database.ts";
import { startListener } from "../../db/listener.ts";
import { type ApiKeyRow, findActiveByHash } from "./api-keys.store.ts";

const KEY_CHANGED_CHANNEL = "api_key_changed";
const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export interface ApiKeyCache {
  find(secretHash: Buffer, now?: number): Promise<ApiKeyRow | undefined>;
  /** Drops a key that this process just revoked or rotated, before the change is answered. */
  forget(keyId: string): void;
  stop(): Promise<void>;
}

export async function createApiKeyCache(options: {
  pool: pg.Pool;
  settings: ConnectionSettings;
  logger: Logger;
}): Promise<ApiKeyCache> {
  const entries = new Map<string, { row: ApiKeyRow; until: number }>();
  let generation = 0;

  const forget = (keyId: string | undefined) => {
    generation++;
    if (keyId === undefined) {
      entries.clear();
      return;
    }
    for (const [hash, entry] of entries) if (entry.row.id === keyId) entries.delete(hash);
  };

  const listener = await startListener({
    settings: options.settings,
    channel: KEY_CHANGED_CHANNEL,
    name: "service-key-cache",
    logger: options.logger,
    onNotification: (payload) => forget(payload || undefined),
    // Whatever changed while the connection was down is unknown: start empty.
    onConnect: () => forget(undefined),
    onLost: () => forget(undefined),
  });

  return {
    async find(secretHash, now = Date.now()) {
      const hash = secretHash.toString("hex");
      const hit = entries.get(hash);
      if (hit && hit.until > now && listener.connected) {
        if (!hit.row.expires_at || hit.row.expires_at.getTime() > now) return hit.row;
        entries.delete(hash);
        return undefined;
      }
      const before = generation;
      const row = await findActiveByHash(options.pool, secretHash);
      // Only found keys are cached (a key created a moment ago must not be refused from the cache), and only when no
      // key changed during the lookup (it may have read the row before a revocation committed).
      if (row && listener.connected && generation === before) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { row, until: now + CACHE_TTL_MS });
      }
      return row;
    },
    forget,
    async stop() {
      entries.clear();
      await listener.stop();
    },
  };
}
