import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

describe("tenancy and scopes", () => {
  it("answers 404 to every cross-workspace read and write, and changes nothing", async () => {
    const alice = await clientFor(service());
    const bob = await clientFor(service());
    const lead = ok(await alice.POST("/v1/leads", { body: { name: "Alice's lead" } }));
    const conversation = ok(await alice.POST("/v1/conversations", { body: { lead_id: lead.id } }));
    const ticket = ok(await alice.POST("/v1/tickets", { body: { subject: "Alice's ticket" } }));
    const [event] = ok(await alice.GET("/v1/events", { params: { query: { limit: 1 } } })).data;

    const attempts = [
      bob.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: lead.id } } }),
      bob.PATCH("/v1/leads/{lead_id}", { params: { path: { lead_id: lead.id } }, body: { name: "mine" } }),
      bob.DELETE("/v1/leads/{lead_id}", { params: { path: { lead_id: lead.id } } }),
      bob.GET("/v1/conversations/{conversation_id}", { params: { path: { conversation_id: conversation.id } } }),
      bob.PATCH("/v1/conversations/{conversation_id}", {
        params: { path: { conversation_id: conversation.id } },
        body: { state: "closed" },
      }),
      bob.GET("/v1/conversations/{conversation_id}/messages", {
        params: { path: { conversation_id: conversation.id } },
      }),
      bob.POST("/v1/conversations/{conversation_id}/messages", {
        params: { path: { conversation_id: conversation.id } },
        body: { author: { type: "agent", id: "x" }, body: "hi" },
      }),
      bob.GET("/v1/tickets/{ticket_id}", { params: { path: { ticket_id: ticket.id } } }),
      bob.PATCH("/v1/tickets/{ticket_id}", { params: { path: { ticket_id: ticket.id } }, body: { status: "closed" } }),
      bob.GET("/v1/events/{event_id}", { params: { path: { event_id: event?.id as string } } }),
      bob.POST("/v1/conversations", { body: { lead_id: lead.id } }),
      bob.POST("/v1/tickets", { body: { subject: "x", conversation_id: conversation.id } }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.response.status, JSON.stringify(answer.error)).toBe(404);
    }
    for await (const item of bob.leads.list()) throw new Error(`bob sees ${item.id}`);
    expect(ok(await alice.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: lead.id } } })).name).toBe(
      "Alice's lead",
    );
    expect(ok(await alice.GET("/v1/tickets/{ticket_id}", { params: { path: { ticket_id: ticket.id } } })).status).toBe(
      "new",
    );
  });

  it("answers 403 INSUFFICIENT_SCOPE to a read-only key's write", async () => {
    const reader = await clientFor(service(), ["leads:read", "tickets:read"]);
    const write = await reader.POST("/v1/leads", { body: { name: "x" } });
    expect(write.response.status).toBe(403);
    expect(write.error).toMatchObject({ code: "INSUFFICIENT_SCOPE" });
    expect((await reader.GET("/v1/leads")).response.status).toBe(200);
    expect((await reader.GET("/v1/conversations")).response.status).toBe(403);
  });

  it("spends a per-key request budget, with RateLimit headers and 429 + Retry-After past it", async () => {
    const { key } = await workspaceWithKey(service(), ["leads:read"]);
    const tight = await import("../helpers/service.ts").then(({ startTestService }) =>
      startTestService({ API_RATE_LIMIT_PER_MINUTE: "3" }),
    );
    try {
      const { key: tightKey } = await workspaceWithKey(tight, ["leads:read"]);
      const call = () => tight.fetch("/v1/leads", { headers: { authorization: `Bearer ${tightKey}` } });
      for (let i = 0; i < 3; i++) {
        const response = await call();
        expect(response.status).toBe(200);
        expect(response.headers.get("ratelimit-policy")).toBe('"api-key";q=3;w=60');
        expect(response.headers.get("ratelimit")).toMatch(new RegExp(`^"api-key";r=${2 - i};t=\\d+$`));
      }
      const limited = await call();
      await expectProblem(limited, 429, "RATE_LIMITED");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    } finally {
      await tight.stop();
      await tight.database.drop();
    }
    expect((await service().fetch("/v1/leads", { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });
});

describe("bad input answers 400 problem+json, never 500", () => {
  const cases: { name: string; method: string; path: string; body?: unknown; field: RegExp; code?: string }[] = [
    { name: "a malformed lead id", method: "GET", path: "/v1/leads/lead_123", field: /lead_id/ },
    {
      name: "an id of another kind",
      method: "GET",
      path: "/v1/tickets/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
      field: /ticket_id/,
    },
    { name: "an unknown field", method: "POST", path: "/v1/leads", body: { name: "x", is_vip: true }, field: /is_vip/ },
    { name: "a wrong type", method: "POST", path: "/v1/leads", body: { name: 42 }, field: /name/ },
    {
      name: "a wrong enum value",
      method: "POST",
      path: "/v1/leads",
      body: { name: "x", status: "hot" },
      field: /status/,
    },
    { name: "an oversized string", method: "POST", path: "/v1/leads", body: { name: "x".repeat(201) }, field: /name/ },
    {
      name: "a too long tag list",
      method: "POST",
      path: "/v1/leads",
      body: { name: "x", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
      field: /tags/,
    },
    { name: "a malformed e-mail", method: "POST", path: "/v1/leads", body: { email: "not-an-email" }, field: /email/ },
    {
      name: "a malformed timestamp",
      method: "POST",
      path: "/v1/tickets",
      body: { subject: "x", due_at: "tomorrow" },
      field: /due_at/,
    },
    { name: "a limit over 100", method: "GET", path: "/v1/leads?limit=101", field: /limit/ },
    { name: "a limit that is not a number", method: "GET", path: "/v1/leads?limit=ten", field: /limit/ },
    {
      name: "a forged cursor",
      method: "GET",
      path: "/v1/leads?cursor=eyJ2IjoxLCJpZCI6IngifQ",
      field: /cursor/,
      code: "INVALID_CURSOR",
    },
    {
      name: "a cursor that is not base64 JSON",
      method: "GET",
      path: "/v1/tickets?cursor=%%%%",
      field: /cursor/,
      code: "INVALID_CURSOR",
    },
    {
      name: "a cursor of another list",
      method: "GET",
      path: "/v1/tickets?cursor=eyJ2IjoxLCJpZCI6ImxlYWRfMDFKRDNaNlE0VzJZQjdLOE45UDBSNVM2VDcifQ",
      field: /cursor/,
      code: "INVALID_CURSOR",
    },
    { name: "a bad filter value", method: "GET", path: "/v1/leads?created_after=yesterday", field: /created_after/ },
    { name: "an unknown filter", method: "GET", path: "/v1/leads?colour=red", field: /colour/ },
  ];

  it.each(cases)("for $name", async ({ method, path, body, field, code }) => {
    const { key } = await workspaceWithKey(service(), ["leads:read", "leads:write", "tickets:read", "tickets:write"]);
    const response = await service().fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const problem = await expectProblem(response, 400, code ?? "VALIDATION_FAILED");
    expect(JSON.stringify(problem.errors ?? problem.detail)).toMatch(field);
  });
});

describe("events are written with their change, in one transaction", () => {
  it("leaves neither the lead nor its event when the write fails after the insert", async () => {
    const client = await clientFor(service());
    const pool = service().service.db.pool;
    // Failure injection in the real database: recording the event of this one lead fails.
    await pool.query(`CREATE OR REPLACE FUNCTION fail_marked_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.data->'object'->>'name' = 'fail after insert' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NEW;
      END $$`);
    await pool.query(
      "CREATE TRIGGER fail_marked_event BEFORE INSERT ON event_outbox FOR EACH ROW EXECUTE FUNCTION fail_marked_event()",
    );
    try {
      const failed = await client.POST("/v1/leads", {
        body: { name: "fail after insert" },
        headers: { "Idempotency-Key": "atomic-1" },
      });
      expect(failed.response.status).toBe(500);
      expect(failed.error).toMatchObject({ code: "INTERNAL_ERROR" });
      const leads = await pool.query("SELECT 1 FROM leads WHERE workspace_id = $1", [client.workspaceId]);
      const events = await pool.query("SELECT 1 FROM events WHERE workspace_id = $1", [client.workspaceId]);
      const keys = await pool.query("SELECT 1 FROM idempotency_keys WHERE workspace_id = $1", [client.workspaceId]);
      expect([leads.rowCount, events.rowCount, keys.rowCount]).toEqual([0, 0, 0]);

      ok(await client.POST("/v1/leads", { body: { name: "fine" } }));
      const after = await pool.query(
        "SELECT (SELECT count(*) FROM leads WHERE workspace_id = $1)::int AS leads, (SELECT count(*) FROM events WHERE workspace_id = $1)::int AS events",
        [client.workspaceId],
      );
      expect(after.rows[0]).toEqual({ leads: 1, events: 1 });
    } finally {
      await pool.query("DROP TRIGGER fail_marked_event ON event_outbox");
    }
  });
});
