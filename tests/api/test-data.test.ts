/**
 * Test mode from outside (issue 42): a `sk_test_` key reaches a world of its own in the same workspace. Ids of one
 * mode are 404s in the other, both ways; each mode has its own feed from sequence 1; every object and event says
 * `livemode`; a reset deletes test data only, restarts the test feed, and tells a follower; a live key can do neither.
 * How fast a reset of 10,000 objects is, is measured by `npm run bench:test-data-reset`, not here.
 */
import { createClient, type ServiceClient } from "@service/sdk";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../server/src/cli/admin-commands.ts";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES, ok } from "../helpers/sdk.ts";
import { type TestService, useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "1000000", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });

interface Modes {
  workspaceId: string;
  live: ServiceClient;
  test: ServiceClient;
  liveKey: string;
  testKey: string;
}

/** One workspace of `on` with a live and a test key of these scopes (the admin CLI's path). */
async function workspaceWithModes(on: TestService = service(), scopes = ALL_SCOPES): Promise<Modes> {
  const { workspaceId, key: liveKey } = await workspaceWithKey(on, scopes);
  const { key: testKey } = await createApiKey(on.service.db.pool, {
    workspaceId,
    name: "test mode",
    scopes,
    mode: "test",
  });
  const client = (apiKey: string) => createClient({ apiKey, baseUrl: on.url, maxRetries: 0 });
  return { workspaceId, live: client(liveKey), test: client(testKey), liveKey, testKey };
}

/** 100 objects: 40 leads, 30 conversations and 30 tickets; returns their paths. */
async function makeObjects(client: ServiceClient, label: string): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < 40; i++) {
    const lead = ok(await client.POST("/v1/leads", { body: { email: `${label}.${i}@example.com` } }));
    paths.push(`/v1/leads/${lead.id}`);
  }
  for (let i = 0; i < 30; i++) {
    const conversation = ok(await client.POST("/v1/conversations", { body: { subject: `${label} ${i}` } }));
    paths.push(`/v1/conversations/${conversation.id}`);
    const ticket = ok(await client.POST("/v1/tickets", { body: { subject: `${label} ${i}` } }));
    paths.push(`/v1/tickets/${ticket.id}`);
  }
  return paths;
}

async function status(key: string, path: string): Promise<number> {
  const answer = await service().fetch(path, { headers: { authorization: `Bearer ${key}` } });
  await answer.arrayBuffer();
  return answer.status;
}

type Feed = { sequence: number; id: string; livemode: boolean; workspace_id: string; data: { object: unknown } }[];

async function feed(client: ServiceClient, after = 0): Promise<{ events: Feed; restarted_at: string | null }> {
  const events: Feed = [];
  let position = after;
  let restarted_at: string | null = null;
  for (;;) {
    const page = ok(await client.GET("/v1/events", { params: { query: { after_sequence: position, limit: 100 } } }));
    events.push(...(page.data as unknown as Feed));
    restarted_at = page.restarted_at;
    position = events.at(-1)?.sequence ?? position;
    if (!page.has_more) return { events, restarted_at };
  }
}

async function settledReset(client: ServiceClient, id: string) {
  for (;;) {
    const reset = ok(await client.GET("/v1/test-data/resets/{reset_id}", { params: { path: { reset_id: id } } }));
    if (reset.status === "succeeded" || reset.status === "failed") return reset;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every live row of the workspace, as text, in a stable order: equal before and after means untouched. */
async function liveChecksum(workspaceId: string): Promise<string> {
  const tables = ["leads", "conversations", "messages", "tickets", "events", "deliveries", "idempotency_keys"];
  const parts = tables.map(
    (table) =>
      `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ${table} t WHERE t.workspace_id = $1)`,
  );
  const { rows } = await service().service.db.pool.query<{ sum: string }>(
    `SELECT concat_ws(',', ${parts.join(", ")}) AS sum`,
    [workspaceId],
  );
  return rows[0]?.sum ?? "";
}

describe("two modes in one workspace", () => {
  it("keeps ids of one mode a 404 in the other, both ways, and says livemode on everything", async () => {
    const modes = await workspaceWithModes();
    expect(modes.liveKey).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
    expect(modes.testKey).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    const testPaths = await makeObjects(modes.test, "test");
    const livePaths = await makeObjects(modes.live, "live");
    for (const path of testPaths) {
      expect([path, await status(modes.liveKey, path)]).toEqual([path, 404]);
      expect([path, await status(modes.testKey, path)]).toEqual([path, 200]);
    }
    for (const path of livePaths) {
      expect([path, await status(modes.testKey, path)]).toEqual([path, 404]);
    }
    const testLeads = ok(await modes.test.GET("/v1/leads", { params: { query: { limit: 100 } } }));
    expect(testLeads.data).toHaveLength(40);
    expect(testLeads.data.every((lead) => lead.livemode === false && lead.email?.startsWith("test."))).toBe(true);
    const liveLeads = ok(await modes.live.GET("/v1/leads", { params: { query: { limit: 100 } } }));
    expect(liveLeads.data.every((lead) => lead.livemode === true && lead.email?.startsWith("live."))).toBe(true);
  });

  it("gives each mode its own feed from sequence 1, disjoint, with the workspace's id", async () => {
    const modes = await workspaceWithModes();
    await makeObjects(modes.test, "t");
    await makeObjects(modes.live, "l");
    const test = await feed(modes.test);
    const live = await feed(modes.live);
    // 40 leads, 30 conversations and 30 tickets: one event each.
    expect(test.events.map((event) => event.sequence)).toEqual(test.events.map((_, i) => i + 1));
    expect(live.events.map((event) => event.sequence)).toEqual(live.events.map((_, i) => i + 1));
    expect(test.events).toHaveLength(100);
    expect(live.events).toHaveLength(100);
    const liveIds = new Set(live.events.map((event) => event.id));
    expect(test.events.filter((event) => liveIds.has(event.id))).toEqual([]);
    expect(new Set(test.events.map((event) => `${event.livemode} ${event.workspace_id}`))).toEqual(
      new Set([`false ${modes.workspaceId}`]),
    );
    expect(new Set(live.events.map((event) => `${event.livemode} ${event.workspace_id}`))).toEqual(
      new Set([`true ${modes.workspaceId}`]),
    );
    expect(test.events.every((event) => (event.data.object as { livemode: boolean }).livemode === false)).toBe(true);
    expect([test.restarted_at, live.restarted_at]).toEqual([null, null]);
  });

  it("keeps idempotency keys apart: the same key in each mode makes two objects", async () => {
    const modes = await workspaceWithModes();
    const options = { params: { header: { "Idempotency-Key": "same-key-both-modes" } } };
    const inTest = ok(await modes.test.POST("/v1/leads", { body: { email: "a@example.com" }, ...options }));
    const inLive = ok(await modes.live.POST("/v1/leads", { body: { email: "a@example.com" }, ...options }));
    expect(inTest.id).not.toBe(inLive.id);
    expect([inTest.livemode, inLive.livemode]).toEqual([false, true]);
  });
});

describe("POST /v1/test-data/reset", () => {
  it("refuses a live key with 403 TEST_MODE_ONLY, and changes nothing", async () => {
    const modes = await workspaceWithModes();
    await makeObjects(modes.live, "kept");
    const before = await liveChecksum(modes.workspaceId);
    const answer = await modes.live.POST("/v1/test-data/reset", {});
    expect(answer.response.status).toBe(403);
    expect(answer.error).toMatchObject({ code: "TEST_MODE_ONLY" });
    expect((answer.error as { detail: string }).detail).toMatch(/sk_test_/);
    expect(await liveChecksum(modes.workspaceId)).toBe(before);
  });

  it("deletes every test object and event, leaves live data as it was, and restarts the test feed at 1", async () => {
    const modes = await workspaceWithModes();
    const testPaths = await makeObjects(modes.test, "gone");
    await makeObjects(modes.live, "kept");
    const before = await liveChecksum(modes.workspaceId);
    const old = await feed(modes.test);
    expect(old.events).toHaveLength(100);

    const accepted = await modes.test.POST("/v1/test-data/reset", {});
    expect(accepted.response.status).toBe(202);
    const reset = ok(accepted);
    expect(accepted.response.headers.get("location")).toBe(`/v1/test-data/resets/${reset.id}`);
    expect(reset).toMatchObject({ object: "test_data_reset", livemode: false });
    const done = await settledReset(modes.test, reset.id);
    expect(done).toMatchObject({
      status: "succeeded",
      deleted: { leads: 40, conversations: 30, messages: 0, tickets: 30, events: 100, deliveries: 0 },
    });
    expect(done.completed_at).not.toBeNull();

    for (const path of testPaths) expect([path, await status(modes.testKey, path)]).toEqual([path, 404]);
    expect(await liveChecksum(modes.workspaceId)).toBe(before);

    // A follower at its old position is told; the new feed starts at 1 and says when it restarted.
    const stale = await modes.test.GET("/v1/events", { params: { query: { after_sequence: 100 } } });
    expect(stale.response.status).toBe(410);
    expect(stale.error).toMatchObject({ code: "EVENTS_RESET" });
    ok(await modes.test.POST("/v1/leads", { body: { email: "after@example.com" } }));
    const fresh = await feed(modes.test);
    expect(fresh.events.map((event) => event.sequence)).toEqual([1]);
    expect(fresh.restarted_at).not.toBeNull();
    // Tickets are numbered from 1 again as well.
    const ticket = ok(await modes.test.POST("/v1/tickets", { body: { subject: "first again" } }));
    expect(ticket.number).toBe(1);
  });

  it("answers the reset in progress when asked again, and 404s another mode's reset", async () => {
    const modes = await workspaceWithModes();
    await makeObjects(modes.test, "twice");
    const [first, second] = await Promise.all([
      modes.test.POST("/v1/test-data/reset", {}),
      modes.test.POST("/v1/test-data/reset", {}),
    ]);
    const a = ok(first);
    const b = ok(second);
    const settled = await settledReset(modes.test, a.id);
    expect(settled.status).toBe("succeeded");
    if (a.id !== b.id) expect((await settledReset(modes.test, b.id)).status).toBe("succeeded");
    const other = await workspaceWithModes();
    const elsewhere = await other.test.GET("/v1/test-data/resets/{reset_id}", {
      params: { path: { reset_id: a.id } },
    });
    expect(elsewhere.response.status).toBe(404);
    expect(elsewhere.error).toMatchObject({ code: "TEST_DATA_RESET_NOT_FOUND" });
  });
});

describe("what test traffic does not touch", () => {
  const limited = useTestService({ API_RATE_LIMIT_PER_MINUTE: "5" });

  it("counts budgets per key: a test key over its budget leaves the live key's whole", async () => {
    const { liveKey, testKey } = await workspaceWithModes(limited(), ["leads:read"]);
    const read = async (key: string) => {
      const answer = await limited().fetch("/v1/leads", { headers: { authorization: `Bearer ${key}` } });
      await answer.arrayBuffer();
      return answer.status;
    };
    const test = [];
    for (let i = 0; i < 6; i++) test.push(await read(testKey));
    expect(test).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await read(liveKey)).toBe(200);
  });

  it("delivers test events to test subscriptions only, with livemode false and the workspace's id", async () => {
    const { workspaceId, live, test } = await workspaceWithModes();
    // Nothing listens there: the deliveries fail, and keep the body they sent.
    const body = { url: "https://127.0.0.1:9/hook", events: ["lead.captured" as const] };
    const liveHook = ok(await live.POST("/v1/webhooks", { body }));
    const testHook = ok(await test.POST("/v1/webhooks", { body }));
    expect([liveHook.livemode, testHook.livemode]).toEqual([true, false]);
    const lead = ok(await test.POST("/v1/leads", { body: { email: "hooked@example.com" } }));
    const deliveries = (webhook: string, on: ServiceClient) =>
      on.GET("/v1/webhooks/{webhook_id}/deliveries", { params: { path: { webhook_id: webhook } } });
    await expect.poll(async () => ok(await deliveries(testHook.id, test)).data.length).toBe(1);
    const [delivery] = ok(await deliveries(testHook.id, test)).data;
    const payload = JSON.parse(delivery?.payload ?? "{}") as { livemode: boolean; workspace_id: string; data: unknown };
    expect(delivery?.livemode).toBe(false);
    expect([payload.livemode, payload.workspace_id]).toEqual([false, workspaceId]);
    expect(payload.data).toMatchObject({ object: { id: lead.id, livemode: false } });
    expect(ok(await deliveries(liveHook.id, live)).data).toEqual([]);
    // Each mode's subscriptions are its own: the other mode's id is a 404.
    const across = await live.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: testHook.id } } });
    expect(across.response.status).toBe(404);
  });
});
