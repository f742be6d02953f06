import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

async function post(key: string, token: string, body: object, path = "/v1/leads") {
  const response = await service().fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "idempotency-key": key },
    body: JSON.stringify(body),
  });
  return { response, body: (await response.json()) as Record<string, unknown> };
}

describe("Idempotency-Key on writes", () => {
  it("creates exactly one lead for 50 concurrent POSTs with one key, and answers each with its id", async () => {
    const client = await clientFor(service());
    const key = `race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        client.POST("/v1/leads", { body: { email: "race@example.com" }, headers: { "Idempotency-Key": key } }),
      ),
    );
    const ids = new Set(answers.map((answer) => ok(answer).id));
    expect(ids.size).toBe(1);
    expect(answers.every((answer) => answer.response.status === 201)).toBe(true);
    expect(answers.filter((answer) => answer.response.headers.get("idempotent-replayed") === "true")).toHaveLength(49);
    const { rows } = await service().service.db.pool.query(
      "SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1",
      [client.workspaceId],
    );
    expect(rows[0].n).toBe(1);
    const events = await service().service.db.pool.query(
      "SELECT count(*)::int AS n FROM events WHERE workspace_id = $1",
      [client.workspaceId],
    );
    expect(events.rows[0].n, "one change, one event").toBe(1);
  });

  it("answers every one of 20 concurrent raw POSTs with one key 201, one created and 19 replayed", async () => {
    // Plain fetch, not the SDK: its own retries would hide a duplicate that the server failed to replay.
    const { key: token, workspaceId } = await workspaceWithKey(service(), ["leads:write"]);
    const key = `raw-race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post(key, token, { email: "raw-race@example.com" })),
    );
    expect(answers.map((answer) => answer.response.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.response.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
    const { rows } = await service().service.db.pool.query(
      "SELECT (SELECT count(*)::int FROM leads WHERE workspace_id = $1) AS leads, (SELECT count(*)::int FROM events WHERE workspace_id = $1) AS events",
      [workspaceId],
    );
    expect(rows[0]).toEqual({ leads: 1, events: 1 });
  });

  it("replays the stored answer, byte for byte, with Idempotent-Replayed: true", async () => {
    const { key: token } = await workspaceWithKey(service(), ["leads:write"]);
    const first = await post("replay-1", token, { name: "Ada", tags: ["a"] });
    const again = await post("replay-1", token, { tags: ["a"], name: "Ada" });
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get("idempotent-replayed")).toBeNull();
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("replays every write's first answer byte for byte, its Location included", async () => {
    const { key: token } = await workspaceWithKey(service(), [
      "leads:write",
      "conversations:write",
      "tickets:write",
      "conversations:read",
    ]);
    const send = async (method: string, path: string, key: string, body?: object) => {
      const response = await service().fetch(path, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "idempotency-key": key },
        ...(body && { body: JSON.stringify(body) }),
      });
      return { status: response.status, location: response.headers.get("location"), text: await response.text() };
    };
    const twice = async (method: string, path: string, body?: object) => {
      const key = `bytes-${method}-${path}-${Math.random()}`;
      const first = await send(method, path, key, body);
      const again = await send(method, path, key, body);
      expect(first.status, first.text).toBeLessThan(300);
      expect(again).toEqual(first);
      return first;
    };
    // Keys in an order jsonb would not keep: longer before shorter, and nested.
    const attributes = { zeta_longest: 1, b: { yy: 2, a: 1 }, a: [{ z: 1, y: 2 }] };
    const lead = await twice("POST", "/v1/leads", { name: "Bytes", custom_attributes: attributes });
    const leadId = (JSON.parse(lead.text) as { id: string }).id;
    expect(lead.location).toBe(`/v1/leads/${leadId}`);
    await twice("PATCH", `/v1/leads/${leadId}`, { custom_attributes: { ...attributes, c: true } });
    const conversation = await twice("POST", "/v1/conversations", { subject: "Bytes", lead_id: leadId });
    const conversationId = (JSON.parse(conversation.text) as { id: string }).id;
    expect(conversation.location).toBe(`/v1/conversations/${conversationId}`);
    const message = await twice("POST", `/v1/conversations/${conversationId}/messages`, {
      author: { type: "agent", id: "agent@example.com" },
      body: "Hello",
    });
    const messageId = (JSON.parse(message.text) as { id: string }).id;
    expect(message.location).toBe(`/v1/conversations/${conversationId}/messages/${messageId}`);
    // What Location names, GET reads.
    const read = await service().fetch(message.location as string, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(message.text);
    await twice("PATCH", `/v1/conversations/${conversationId}`, { state: "closed" });
    const ticket = await twice("POST", "/v1/tickets", { subject: "Bytes", lead_id: leadId });
    const ticketId = (JSON.parse(ticket.text) as { id: string }).id;
    expect(ticket.location).toBe(`/v1/tickets/${ticketId}`);
    await twice("PATCH", `/v1/tickets/${ticketId}`, { status: "solved" });
    await twice("DELETE", `/v1/leads/${leadId}`);
  });

  it("replays the first answer when a retry's own run would fail, and leaves nothing of that run", async () => {
    const { key: token, workspaceId } = await workspaceWithKey(service(), ["leads:write"]);
    const externalId = `crm-${Date.now()}`;
    const first = await post("retry-external-id", token, { name: "Ada", external_id: externalId });
    expect(first.response.status).toBe(201);
    // Run again, this create would be a 409 EXTERNAL_ID_TAKEN (the first run took the external_id): the key's stored
    // answer wins.
    const again = await post("retry-external-id", token, { external_id: externalId, name: "Ada" });
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    // A retried delete replays its 204, not the 404 that deleting a deleted lead would be.
    const remove = (key: string) =>
      service().fetch(`/v1/leads/${first.body.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${token}`, "idempotency-key": key },
      });
    expect((await remove("retry-delete")).status).toBe(204);
    const replayed = await remove("retry-delete");
    expect(replayed.status).toBe(204);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await remove("another-delete")).status).toBe(404);
    const { rows } = await service().service.db.pool.query(
      "SELECT (SELECT count(*)::int FROM leads WHERE workspace_id = $1) AS leads, (SELECT count(*)::int FROM events WHERE workspace_id = $1) AS events",
      [workspaceId],
    );
    expect(rows[0], "one lead made, then deleted; its two events").toEqual({ leads: 0, events: 2 });
  });

  it("answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body or path", async () => {
    const { key: token } = await (await import("../helpers/accounts.ts")).workspaceWithKey(service(), [
      "leads:write",
      "tickets:write",
    ]);
    expect((await post("reuse-1", token, { name: "Ada" })).response.status).toBe(201);
    const otherBody = await post("reuse-1", token, { name: "Grace" });
    expect(otherBody.response.status).toBe(422);
    expect(otherBody.body).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    const otherPath = await post("reuse-1", token, { subject: "x" }, "/v1/tickets");
    expect(otherPath.body).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
  });

  it("scopes keys to the workspace", async () => {
    const { workspaceWithKey } = await import("../helpers/accounts.ts");
    const [a, b] = [
      await workspaceWithKey(service(), ["leads:write"]),
      await workspaceWithKey(service(), ["leads:write"]),
    ];
    const first = await post("shared-key", a.key, { name: "Ada" });
    const second = await post("shared-key", b.key, { name: "Ada" });
    expect(second.response.status).toBe(201);
    expect(second.response.headers.get("idempotent-replayed")).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
  });

  it("keeps no key for a failed write, so that a corrected retry can use it", async () => {
    const { key: token } = await (await import("../helpers/accounts.ts")).workspaceWithKey(service(), [
      "conversations:write",
    ]);
    const missingLead = await post(
      "retry-after-404",
      token,
      { lead_id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7" },
      "/v1/conversations",
    );
    expect(missingLead.response.status).toBe(404);
    const again = await post(
      "retry-after-404",
      token,
      { lead_id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7" },
      "/v1/conversations",
    );
    expect(again.response.status).toBe(404);
    expect(again.response.headers.get("idempotent-replayed")).toBeNull();
  });

  it("sends a key on every SDK write and reuses it on the SDK's own retries", async () => {
    const { key } = await (await import("../helpers/accounts.ts")).workspaceWithKey(service(), ["leads:write"]);
    const { createClient } = await import("@service/sdk");
    const seen: (string | null)[] = [];
    let calls = 0;
    const client = createClient({
      apiKey: key,
      baseUrl: service().url,
      async fetch(request) {
        seen.push(request.headers.get("idempotency-key"));
        calls += 1;
        // The first attempt is cut off after the server did the work: the retry must not create a second lead.
        const response = await fetch(request);
        if (calls === 1) return new Response(null, { status: 503, headers: { "retry-after": "0" } });
        return response;
      },
    });
    const created = ok(await client.POST("/v1/leads", { body: { name: "Retried" } }));
    expect(calls).toBe(2);
    expect(seen[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]).toBe(seen[0]);
    const { rows } = await service().service.db.pool.query("SELECT id FROM leads WHERE name = 'Retried'");
    expect(rows.map((row) => row.id)).toEqual([created.id]);
  });
});

describe("a key still in flight", () => {
  const short = useTestService({ IDEMPOTENCY_WAIT_MS: "300" });

  it("answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After when the first request does not finish in time", async () => {
    const { workspaceWithKey } = await import("../helpers/accounts.ts");
    const { key, workspaceId } = await workspaceWithKey(short(), ["leads:write"]);
    // Another request holds the key: its transaction claimed the row and has not committed.
    const holder = await short().service.db.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(
        "INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, expires_at) VALUES ($1, 'busy', '\\x00', 0, now() + interval '1 day')",
        [workspaceId],
      );
      const response = await short().fetch("/v1/leads", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "idempotency-key": "busy" },
        body: JSON.stringify({ name: "Ada" }),
      });
      expect(response.status).toBe(409);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await response.json()).toMatchObject({ code: "IDEMPOTENCY_KEY_IN_USE" });
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    const { rowCount } = await short().service.db.pool.query("SELECT 1 FROM leads WHERE workspace_id = $1", [
      workspaceId,
    ]);
    expect(rowCount).toBe(0);
  });
});
