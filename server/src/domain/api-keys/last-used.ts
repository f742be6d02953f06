/**
 * `last_used_at` without a write per request: uses are collected in memory and written in one UPDATE every
 * `flushIntervalMs`; a key whose stored time is less than a minute old is not written again.
 */
import type pg from "pg";
import type { Logger } from "pino";
import { saveLastUsed } from "./api-keys.store.ts";

const LAST_USED_RESOLUTION_MS = 60_000;

export interface LastUsedTracker {
  touch(keyId: string, storedLastUsedAt: Date | null, now?: Date): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function createLastUsedTracker(pool: pg.Pool, logger: Logger, flushIntervalMs = 15_000): LastUsedTracker {
  const pending = new Map<string, Date>();
  // What this process last wrote per key: lookups may come from a cache whose last_used_at is older.
  const written = new Map<string, number>();
  const flush = async () => {
    if (pending.size === 0) return;
    const uses = [...pending].map(([id, at]) => ({ id, at }));
    pending.clear();
    for (const use of uses) written.set(use.id, use.at.getTime());
    try {
      await saveLastUsed(pool, uses);
    } catch (error) {
      logger.warn({ err: error }, "could not record API key use");
    }
  };
  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref();
  return {
    touch(keyId, storedLastUsedAt, now = new Date()) {
      const latest = Math.max(storedLastUsedAt?.getTime() ?? 0, written.get(keyId) ?? 0);
      if (now.getTime() - latest < LAST_USED_RESOLUTION_MS || pending.has(keyId)) return;
      pending.set(keyId, now);
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
