/**
 * The key cache against a real PostgreSQL: a lookup in flight while its key is revoked must not put the key back
 * in the cache, and the process that revokes drops the key itself before it answers. The in-flight lookup is held
 * open by a gate around the real pool's answer (a seam, not a mock: the query runs on PostgreSQL).
 */
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../tests/helpers/database.ts";
import { createApiKey, createWorkspace } from "../../cli/admin-commands.ts";
import { connectionSettings } from "../../db/database.ts";
import { migrate } from "../../db/migrate.ts";
import { sha256 } from "../../lib/secrets.ts";
import { createApiKeyService } from "./api-keys.service.ts";
import { createApiKeyCache } from "./key-cache.ts";

const logger = pino({ level: "silent" });
const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe("the API key cache", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let workspaceId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    await migrate(pool);
    workspaceId = (await createWorkspace(pool, { name: "Cache", ownerEmail: "cache@example.com" })).workspace_id;
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const settings = () =>
    connectionSettings(database.url, {
      databaseUrl: database.url,
      dataDir: ".data",
      dbConnectTimeoutMs: 5_000,
      dbStatementTimeoutMs: 5_000,
      dbPoolMax: 4,
    });

  it("does not cache a row read by a lookup that was in flight when the key was revoked", async () => {
    const { id, key } = await createApiKey(pool, { workspaceId, name: "racing", scopes: ["events:read"] });
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let held = false;
    const gated = Object.assign(Object.create(pool), {
      query: async (...args: Parameters<pg.Pool["query"]>) => {
        const result = await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
        if (!held) {
          held = true;
          await gate;
        }
        return result;
      },
    }) as pg.Pool;
    const seen: string[] = [];
    const cache = await createApiKeyCache({ pool: gated, settings: settings(), logger });
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    await listener.query("LISTEN api_key_changed");
    listener.on("notification", (message) => seen.push(message.payload ?? ""));
    try {
      const inFlight = cache.find(sha256(key));
      await until(() => held);
      await createApiKeyService(pool).revoke(workspaceId, id);
      await until(() => seen.includes(id));
      await new Promise((resolve) => setTimeout(resolve, 50)); // the cache's own listener, on its own connection
      open();
      expect((await inFlight)?.id, "the request in flight was authenticated before the revocation").toBe(id);
      expect(await cache.find(sha256(key)), "the next lookup reads the revocation").toBeUndefined();
    } finally {
      await listener.end();
      await cache.stop();
    }
  });

  it("drops a key in the revoking process before the revocation is answered", async () => {
    const { id, key } = await createApiKey(pool, { workspaceId, name: "local", scopes: ["events:read"] });
    const cache = await createApiKeyCache({ pool, settings: settings(), logger });
    try {
      expect((await cache.find(sha256(key)))?.id).toBe(id);
      const dropped: string[] = [];
      const service = createApiKeyService(pool, {
        onKeyChanged: (keyId) => {
          dropped.push(keyId);
          cache.forget(keyId);
        },
      });
      await service.revoke(workspaceId, id);
      expect(dropped).toEqual([id]);
      const rotated = await createApiKey(pool, { workspaceId, name: "rotating", scopes: ["events:read"] });
      await service.rotate(workspaceId, rotated.id, 60);
      expect(dropped).toEqual([id, rotated.id]);
      // Checked against the cache before any notification could matter: the row is read again.
      expect(await cache.find(sha256(key))).toBeUndefined();
    } finally {
      await cache.stop();
    }
  });
});
