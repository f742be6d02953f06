/**
 * The rules of API keys (pure: the wire shape, the requested expiry, which keys rotate) and the service's reads on a
 * real PostgreSQL (pages of one workspace's keys, through the shared listPage).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../tests/helpers/database.ts";
import { createWorkspace } from "../../cli/admin-commands.ts";
import { migrate } from "../../db/migrate.ts";
import { AppError } from "../../errors.ts";
import { encodeCursor } from "../../lib/cursor.ts";
import { assertRotatable, createApiKeyService, requestedExpiry, toApiKey } from "./api-keys.service.ts";
import type { ApiKeyRow } from "./api-keys.store.ts";

const NOW = new Date("2026-11-01T09:00:00.000Z");
const ROW: ApiKeyRow = {
  id: "key_01JD3Z7F1B2C3D4E5F6G7H8J9K",
  workspace_id: "ws_01JD3Z7E1B2C3D4E5F6G7H8J9K",
  name: "zapier",
  prefix: "sk_live_AbCd",
  scopes: ["leads:read", "leads:write"],
  created_at: new Date("2026-10-01T09:00:00.000Z"),
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
};

/** The AppError that `run` throws (any other outcome fails the test). */
async function refusal(run: () => unknown): Promise<AppError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal, got an answer");
}

describe("toApiKey", () => {
  it("shows the key's prefix and dates, never its workspace or hash", () => {
    expect(toApiKey({ ...ROW, last_used_at: NOW })).toEqual({
      id: ROW.id,
      object: "api_key",
      livemode: true,
      name: "zapier",
      prefix: "sk_live_AbCd",
      scopes: ["leads:read", "leads:write"],
      created_at: "2026-10-01T09:00:00.000Z",
      last_used_at: "2026-11-01T09:00:00.000Z",
      expires_at: null,
      revoked_at: null,
    });
  });
});

describe("requestedExpiry", () => {
  it("takes no expiry, or one after now", () => {
    expect(requestedExpiry(undefined, NOW)).toBeNull();
    expect(requestedExpiry("2026-11-01T09:00:01Z", NOW)).toEqual(new Date("2026-11-01T09:00:01Z"));
  });

  it.each(["2026-11-01T09:00:00Z", "2026-10-31T09:00:00Z"])(
    "refuses %s, not after now, with 400 on body.expires_at",
    async (expiresAt) => {
      const error = await refusal(() => requestedExpiry(expiresAt, NOW));
      expect(error.code).toBe("VALIDATION_FAILED");
      expect(error.errors).toEqual([{ path: "body.expires_at", message: "must be in the future" }]);
    },
  );
});

describe("assertRotatable", () => {
  it("lets a live key rotate, with or without a future expiry", () => {
    expect(() => assertRotatable(ROW, NOW)).not.toThrow();
    expect(() => assertRotatable({ ...ROW, expires_at: new Date("2026-11-02T00:00:00Z") }, NOW)).not.toThrow();
  });

  it.each([
    ["revoked", { revoked_at: new Date("2026-10-15T00:00:00Z") }],
    ["expired", { expires_at: new Date("2026-10-31T00:00:00Z") }],
    ["expiring at now", { expires_at: NOW }],
  ])("refuses a %s key with 409 INVALID_STATE_TRANSITION", async (_, change) => {
    const error = await refusal(() => assertRotatable({ ...ROW, ...change }, NOW));
    expect(error.code).toBe("INVALID_STATE_TRANSITION");
  });
});

describe("the API key service on PostgreSQL", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    await migrate(pool);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it("pages through one workspace's keys newest first, and refuses another kind's cursor", async () => {
    const ours = (await createWorkspace(pool, { name: "Ours", ownerEmail: "ours@example.com" })).workspace_id;
    const theirs = (await createWorkspace(pool, { name: "Theirs", ownerEmail: "theirs@example.com" })).workspace_id;
    const service = createApiKeyService(pool);
    const created = [];
    for (const name of ["first", "second", "third"]) {
      created.push(await service.create(ours, { name, scopes: ["leads:read"] }));
    }
    await service.create(theirs, { name: "not ours", scopes: ["leads:read"] });

    const first = await service.list(ours, { limit: 2 });
    expect(first.data.map((key) => key.name)).toEqual(["third", "second"]);
    expect(first.has_more).toBe(true);
    expect(first.data[0]).not.toHaveProperty("key");
    const second = await service.list(ours, { limit: 2, cursor: first.next_cursor ?? undefined });
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.data.map((key) => key.id)).toEqual([created[0]?.id]);

    const forged = await refusal(() => service.list(ours, { cursor: encodeCursor("lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7") }));
    expect(forged.code).toBe("INVALID_CURSOR");
  });
});
