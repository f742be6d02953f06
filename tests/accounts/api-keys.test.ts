import { describe, expect, it } from "vitest";
import { json, registerAndVerify, type SignedIn, signIn, uniqueEmail } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ TRUST_PROXY: "loopback" });

async function owner(): Promise<SignedIn> {
  const email = uniqueEmail("owner");
  await registerAndVerify(service(), email);
  return signIn(service(), email);
}

function asOwner(who: SignedIn, init: RequestInit = {}): RequestInit {
  return {
    ...init,
    headers: { ...(init.headers as Record<string, string>), cookie: who.cookie, "x-csrf-token": who.csrf },
  };
}

async function createKey(who: SignedIn, body: object) {
  const response = await service().fetch("/api/workspace/api-keys", asOwner(who, json(body)));
  expect(response.status).toBe(201);
  // The answer carries the key: no cache may keep it.
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as { id: string; key: string; prefix: string; scopes: string[] };
}

const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

describe("API keys in the developer settings", () => {
  it("creates a key whose value is shown once, with a scannable prefix and checksum", async () => {
    const me = await owner();
    const duplicate = await service().fetch(
      "/api/workspace/api-keys",
      asOwner(me, json({ name: "dup", scopes: ["events:read", "events:read"] })),
    );
    await expectProblem(duplicate, 400, "VALIDATION_FAILED");
    const created = await createKey(me, { name: "Zapier", scopes: ["events:read", "leads:read"] });
    expect(created.key).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.scopes).toEqual(["events:read", "leads:read"]);

    const list = await (await service().fetch("/api/workspace/api-keys", asOwner(me))).json();
    expect(list).toMatchObject({ object: "list", has_more: false, data: [{ id: created.id, prefix: created.prefix }] });
    expect(JSON.stringify(list)).not.toContain(created.key);
    const one = await (await service().fetch(`/api/workspace/api-keys/${created.id}`, asOwner(me))).json();
    expect(one).not.toHaveProperty("key");
    const { rows } = await service().service.db.pool.query("SELECT secret_hash FROM api_keys WHERE id = $1", [
      created.id,
    ]);
    expect(rows[0].secret_hash).toHaveLength(32);
    expect(JSON.stringify(rows)).not.toContain(created.key.slice(8));
  });

  it("authenticates /v1 with the key, checks scopes, and records last use without a write per call", async () => {
    const me = await owner();
    const { key, id } = await createKey(me, { name: "reader", scopes: ["events:read"] });
    const ok = await service().fetch("/v1/events", bearer(key));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("ratelimit-policy")).toBe('"api-key";q=600;w=60');

    const denied = await service().fetch("/v1/leads", bearer(key));
    await expectProblem(denied, 403, "INSUFFICIENT_SCOPE");
    expect(denied.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="leads:read"');

    const before = await service().service.db.pool.query("SELECT last_used_at FROM api_keys WHERE id = $1", [id]);
    expect(before.rows[0].last_used_at).toBeNull();
    await service().service.flushLastUsed();
    const after = await service().service.db.pool.query("SELECT last_used_at FROM api_keys WHERE id = $1", [id]);
    expect(after.rows[0].last_used_at).toBeInstanceOf(Date);
  });

  it.each([
    ["no header", {}],
    ["another scheme", { headers: { authorization: "Basic YTpi" } }],
    ["a made-up key", bearer("sk_live_0000000000000000000000000000000000AAAAAA")],
    ["a key with a broken checksum", bearer("sk_live_4eC39HqLyjWDarjtT1zdp7dcW3x9Kq2P0aBv1d")],
  ])("answers 401 with the Bearer challenge for %s", async (_name, init) => {
    const response = await service().fetch("/v1/events", init as RequestInit);
    await expectProblem(response, 401, "UNAUTHENTICATED");
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="api"/);
  });

  it("stops a revoked key at once", async () => {
    const me = await owner();
    const { key, id } = await createKey(me, { name: "temp", scopes: ["events:read"] });
    expect((await service().fetch("/v1/events", bearer(key))).status).toBe(200);
    const revoked = await service().fetch(`/api/workspace/api-keys/${id}`, asOwner(me, { method: "DELETE" }));
    expect(revoked.status).toBe(204);
    await expectProblem(await service().fetch("/v1/events", bearer(key)), 401, "UNAUTHENTICATED");
  });

  it("rotates with an overlap during which both keys work, and only the new one after", async () => {
    const me = await owner();
    const old = await createKey(me, { name: "ci", scopes: ["events:read"] });
    const rotated = await service().fetch(
      `/api/workspace/api-keys/${old.id}/rotate`,
      asOwner(me, json({ overlap_seconds: 2 })),
    );
    expect(rotated.status).toBe(201);
    const fresh = (await rotated.json()) as { key: string; name: string; scopes: string[] };
    expect(fresh).toMatchObject({ name: "ci", scopes: ["events:read"] });
    expect((await service().fetch("/v1/events", bearer(old.key))).status).toBe(200);
    expect((await service().fetch("/v1/events", bearer(fresh.key))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    await expectProblem(await service().fetch("/v1/events", bearer(old.key)), 401, "UNAUTHENTICATED");
    expect((await service().fetch("/v1/events", bearer(fresh.key))).status).toBe(200);
  });

  it("refuses an expired key", async () => {
    const me = await owner();
    const { key, id } = await createKey(me, {
      name: "short",
      scopes: ["events:read"],
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    await service().service.db.pool.query(
      "UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1",
      [id],
    );
    await expectProblem(await service().fetch("/v1/events", bearer(key)), 401, "UNAUTHENTICATED");
  });

  it("keeps each workspace's keys to itself (404, not 403)", async () => {
    const [alice, bob] = [await owner(), await owner()];
    const { id } = await createKey(alice, { name: "alice", scopes: ["events:read"] });
    await expectProblem(await service().fetch(`/api/workspace/api-keys/${id}`, asOwner(bob)), 404, "API_KEY_NOT_FOUND");
    await expectProblem(
      await service().fetch(`/api/workspace/api-keys/${id}`, asOwner(bob, { method: "DELETE" })),
      404,
      "API_KEY_NOT_FOUND",
    );
    const list = await (await service().fetch("/api/workspace/api-keys", asOwner(bob))).json();
    expect(list.data).toEqual([]);
  });

  it("refuses a session write without the CSRF token", async () => {
    const me = await owner();
    const response = await service().fetch("/api/workspace/api-keys", {
      ...json({ name: "x", scopes: ["leads:read"] }),
      headers: { "content-type": "application/json", cookie: me.cookie },
    });
    await expectProblem(response, 403, "CSRF_TOKEN_INVALID");
  });

  it("spends the signed-in user's budget on the workspace's operations however the path is spelled, not on sign-in's own", async () => {
    const me = await owner();
    const remaining = (response: Response) => Number(/;r=(\d+);/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    const first = await service().fetch("/api/workspace/api-keys", asOwner(me));
    expect(first.status).toBe(200);
    const before = remaining(first);
    expect(before).toBeGreaterThan(0);
    // Routes match case-insensitively: the spelling of the path must not skip the budget.
    const shouted = await service().fetch("/API/WORKSPACE/api-keys", asOwner(me));
    expect(shouted.status).toBe(200);
    expect(shouted.headers.get("cache-control")).toBe("no-store");
    expect(remaining(shouted)).toBe(before - 1);
    const session = await service().fetch("/api/auth/session", asOwner(me));
    expect(session.status).toBe(200);
    expect(session.headers.get("ratelimit")).toBeNull();
  });

  it("pages through keys with an opaque cursor, and refuses a forged one", async () => {
    const me = await owner();
    for (let i = 0; i < 3; i++) await createKey(me, { name: `k${i}`, scopes: ["leads:read"] });
    const first = await (await service().fetch("/api/workspace/api-keys?limit=2", asOwner(me))).json();
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await (
      await service().fetch(`/api/workspace/api-keys?limit=2&cursor=${first.next_cursor}`, asOwner(me))
    ).json();
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.data, ...second.data].map((key: { id: string }) => key.id)).size).toBe(3);
    await expectProblem(
      await service().fetch("/api/workspace/api-keys?cursor=bm9wZQ", asOwner(me)),
      400,
      "INVALID_CURSOR",
    );
  });
});

describe("the API key cache of another server process", () => {
  it("forgets a revoked key at once, so that no server accepts it after the revocation commits", async () => {
    const { loadConfig } = await import("../../server/src/config.ts");
    const { startService } = await import("../../server/src/service.ts");
    const pino = (await import("pino")).default;
    const other = await startService(loadConfig({ ...service().env, PORT: "0" }), pino({ level: "silent" }), "api");
    try {
      const me = await owner();
      const { key, id } = await createKey(me, { name: "shared", scopes: ["events:read"] });
      const viaOther = () => fetch(`${other.url}/v1/events`, bearer(key));
      expect((await viaOther()).status, "now cached by the other server").toBe(200);
      expect((await viaOther()).status).toBe(200);
      expect((await service().fetch(`/api/workspace/api-keys/${id}`, asOwner(me, { method: "DELETE" }))).status).toBe(
        204,
      );
      // The notification arrives asynchronously, moments after the commit; 10 s allows for a loaded machine and is
      // still well short of the cache's 30 s TTL (key-cache.ts), so a 401 here is the notification's doing.
      await expect
        .poll(async () => (await viaOther()).status, { timeout: 10_000, interval: 20, message: "revoked key" })
        .toBe(401);
    } finally {
      await other.stop();
    }
  });

  it("races 200 revocations against lookups in flight on two servers: no revoked key is accepted afterwards", async () => {
    const { loadConfig } = await import("../../server/src/config.ts");
    const { startService } = await import("../../server/src/service.ts");
    const { createApiKey } = await import("../../server/src/cli/admin-commands.ts");
    const pino = (await import("pino")).default;
    const other = await startService(loadConfig({ ...service().env, PORT: "0" }), pino({ level: "silent" }), "api");
    try {
      const me = await owner();
      const pool = service().service.db.pool;
      const keys = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          createApiKey(pool, { workspaceId: me.workspaceId, name: `race ${i}`, scopes: ["events:read"] }),
        ),
      );
      const here = (key: string) =>
        service()
          .fetch("/v1/events", bearer(key))
          .then((r) => r.status);
      const there = (key: string) => fetch(`${other.url}/v1/events`, bearer(key)).then((r) => r.status);
      const acceptedRightAfter: string[] = [];
      for (let start = 0; start < keys.length; start += 20) {
        await Promise.all(
          keys.slice(start, start + 20).map(async ({ id, key }) => {
            // Lookups that miss the cache and read the key while its revocation commits.
            const racing = [here(key), there(key), here(key), there(key), here(key), there(key)];
            const revoked = await service().fetch(`/api/workspace/api-keys/${id}`, asOwner(me, { method: "DELETE" }));
            expect(revoked.status).toBe(204);
            // The revoking server refuses the key before it answers the revocation.
            if ((await here(key)) !== 401) acceptedRightAfter.push(id);
            await Promise.all(racing);
          }),
        );
      }
      expect(acceptedRightAfter).toEqual([]);
      // Once the notification has reached the other server, neither accepts any of them: a lookup that raced the
      // revocation must not have put the key back in a cache (it would live there for 30 s).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const accepted: string[] = [];
      for (const { id, key } of keys) {
        if ((await here(key)) !== 401 || (await there(key)) !== 401) accepted.push(id);
      }
      expect(accepted).toEqual([]);
    } finally {
      await other.stop();
    }
  });
});
