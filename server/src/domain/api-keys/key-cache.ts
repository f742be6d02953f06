/**
 * An in-process cache of API key lookups, so that an authenticated call costs no database round trip for the key
 * (one round trip is a large share of a /v1 call: on loopback, PostgreSQL's wake-up is paid by the sender).
 *
 * Revocation and rotation stay immediate across processes: they `NOTIFY api_key_changed` in their transaction, and
 * every process LISTENs and drops the key on commit. The TTL bounds staleness if a notification is ever missed
 * (the listening connection dropping clears the whole cache, and it reconnects); a key's own expiry is checked on
 * every hit.
 */
import pg from "pg";
import type { Logger } from "pino";
import { type ApiKeyRow, findActiveByHash } from "./api-keys.store.ts";

export const KEY_CHANGED_CHANNEL = "api_key_changed";
const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

export interface ApiKeyCache {
  find(secretHash: Buffer, now?: number): Promise<ApiKeyRow | undefined>;
  stop(): Promise<void>;
}

export async function createApiKeyCache(options: {
  pool: pg.Pool;
  databaseUrl: string;
  logger: Logger;
}): Promise<ApiKeyCache> {
  const entries = new Map<string, { row: ApiKeyRow; until: number }>();
  let listener: pg.Client | undefined;
  let stopped = false;

  const evict = (keyId: string) => {
    for (const [hash, entry] of entries) if (entry.row.id === keyId) entries.delete(hash);
  };

  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: options.databaseUrl, application_name: "service-key-cache" });
    client.on("notification", (message) => {
      if (message.channel === KEY_CHANGED_CHANNEL && message.payload) evict(message.payload);
    });
    client.on("error", (error) => {
      options.logger.warn({ err: error }, "API key cache listener failed; reconnecting");
      entries.clear();
      listener = undefined;
      client.end().catch(() => undefined);
      if (!stopped) setTimeout(() => void listen().catch(() => undefined), RECONNECT_MS).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${KEY_CHANGED_CHANNEL}`);
    listener = client;
  };
  await listen();

  return {
    async find(secretHash, now = Date.now()) {
      const hash = secretHash.toString("hex");
      const hit = entries.get(hash);
      if (hit && hit.until > now && listener) {
        if (!hit.row.expires_at || hit.row.expires_at.getTime() > now) return hit.row;
        entries.delete(hash);
        return undefined;
      }
      const row = await findActiveByHash(options.pool, secretHash);
      // Only found keys are cached: a key created a moment ago must not be refused from the cache.
      if (row && listener) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { row, until: now + CACHE_TTL_MS });
      }
      return row;
    },
    async stop() {
      stopped = true;
      entries.clear();
      await listener?.end().catch(() => undefined);
    },
  };
}
