/**
 * The change stream from outside: every change of a lead, conversation, message and ticket is one event per object it
 * changed, numbered per workspace without gaps in commit order, and followed with `GET /v1/events?after_sequence=`.
 */

import { createClient } from "@service/sdk";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../server/src/cli/admin-commands.ts";
import { withTransaction } from "../../server/src/db/transaction.ts";
import { recordEvent } from "../../server/src/domain/events/events.service.ts";
import { deleteEventsBefore } from "../../server/src/domain/events/events.store.ts";
import { pruneOldEvents } from "../../server/src/domain/events/retention.ts";
import { sampleObject } from "../../server/src/domain/webhooks/samples.ts";
import { newId } from "../../server/src/lib/ids.ts";
import { registerAndVerify, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES, clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "1000000" });

type Client = Awaited<ReturnType<typeof clientFor>>;
type StreamEvent = { type: string; sequence: number; data: { object: { id: string; version: number } } } & Record<
  string,
  unknown
>;

/** Every event after `after`, oldest first, paging with limit 100. */
async function follow(client: Client, after = 0): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  let position = after;
  for (;;) {
    const page = ok(await client.GET("/v1/events", { params: { query: { after_sequence: position, limit: 100 } } }));
    events.push(...(page.data as unknown as StreamEvent[]));
    position = events.at(-1)?.sequence ?? position;
    if (!page.has_more) return events;
  }
}

const summary = (events: StreamEvent[]) => events.map((event) => [event.type, event.data.object.version]);

describe("every change is an event", () => {
  it("records each create, update, message and delete once per object changed, consecutive and in order", async () => {
    const client = await clientFor(service());
    const lead = ok(await client.POST("/v1/leads", { body: { name: "Ada" } }));
    expect(lead.version).toBe(1);
    const updated = ok(
      await client.PATCH("/v1/leads/{lead_id}", {
        params: { path: { lead_id: lead.id } },
        body: { status: "contacted" },
      }),
    );
    expect(updated.version).toBe(2);
    // The same values again change nothing: no event, the same version and time.
    const same = ok(
      await client.PATCH("/v1/leads/{lead_id}", {
        params: { path: { lead_id: lead.id } },
        body: { status: "contacted" },
      }),
    );
    expect(same).toEqual(updated);

    const conversation = ok(
      await client.POST("/v1/conversations", {
        body: { lead_id: lead.id, message: { author: { type: "lead", id: null }, body: "Hello" } },
      }),
    );
    expect(conversation).toMatchObject({ version: 1, message_count: 1 });
    const message = ok(
      await client.POST("/v1/conversations/{conversation_id}/messages", {
        params: { path: { conversation_id: conversation.id } },
        body: { author: { type: "agent", id: "agent@example.com" }, body: "Hi" },
      }),
    );
    expect(message.version).toBe(1);
    const ticket = ok(await client.POST("/v1/tickets", { body: { subject: "Help", lead_id: lead.id } }));
    ok(
      await client.PATCH("/v1/tickets/{ticket_id}", {
        params: { path: { ticket_id: ticket.id } },
        body: { status: "open" },
      }),
    );
    const closed = ok(
      await client.PATCH("/v1/conversations/{conversation_id}", {
        params: { path: { conversation_id: conversation.id } },
        body: { state: "closed" },
      }),
    );
    expect(closed.version).toBe(3);
    expect(
      (await client.DELETE("/v1/leads/{lead_id}", { params: { path: { lead_id: lead.id } } })).response.status,
    ).toBe(204);

    const events = await follow(client);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(summary(events)).toEqual([
      ["lead.captured", 1],
      ["lead.updated", 2],
      ["conversation.created", 1],
      ["message.created", 1],
      ["message.created", 1],
      ["conversation.updated", 2],
      ["ticket.updated", 1],
      ["ticket.updated", 2],
      ["conversation.updated", 3],
      ["lead.deleted", 3],
      ["conversation.updated", 4],
      ["ticket.updated", 3],
    ]);
    const byType = (type: string, version: number) =>
      events.find((event) => event.type === type && event.data.object.version === version) as StreamEvent;
    expect(byType("lead.updated", 2).data).toMatchObject({
      changed_fields: ["status"],
      previous_attributes: { status: "new" },
    });
    expect(byType("conversation.updated", 2).data).toMatchObject({
      changed_fields: ["last_message_at", "message_count"],
      previous_attributes: { message_count: 1 },
    });
    // The last state, one version on: the deletion is its last change.
    expect(byType("lead.deleted", 3).data.object).toEqual({ ...updated, version: 3 });
    expect(byType("conversation.updated", 4).data).toMatchObject({
      object: { lead_id: null, version: 4 },
      changed_fields: ["lead_id"],
      previous_attributes: { lead_id: lead.id },
    });
    // The objects as they are now are the last state each event reports.
    const now = ok(
      await client.GET("/v1/conversations/{conversation_id}", {
        params: { path: { conversation_id: conversation.id } },
      }),
    );
    expect(byType("conversation.updated", 4).data.object).toEqual(now);
  });

  it("lists the newest first without after_sequence, as before, each with its sequence", async () => {
    const client = await clientFor(service());
    for (let i = 0; i < 3; i++) ok(await client.POST("/v1/leads", { body: { name: `n${i}` } }));
    const page = ok(await client.GET("/v1/events", { params: { query: { limit: 2 } } }));
    expect(page.data.map((event) => event.sequence)).toEqual([3, 2]);
    expect(page.next_cursor).toEqual(expect.any(String));
  });
});

describe("GET /v1/events/{event_id}", () => {
  it("answers one event as the stream lists it, and 404 EVENT_NOT_FOUND for an id it does not hold", async () => {
    const client = await clientFor(service());
    ok(await client.POST("/v1/leads", { body: { email: "one-event@example.com" } }));
    const [listed] = await follow(client);
    const id = listed?.id as string;
    const one = await client.GET("/v1/events/{event_id}", { params: { path: { event_id: id } } });
    expect(one.response.status).toBe(200);
    expect(one.data).toEqual(listed);
    const missing = await client.GET("/v1/events/{event_id}", { params: { path: { event_id: newId("event") } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: "EVENT_NOT_FOUND" });
  });
});

describe("GET /v1/events?after_sequence=", () => {
  it("pages oldest first, filters by type, and holds every event of 20 concurrent writers once, in order", async () => {
    const client = await clientFor(service());
    const leads = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.POST("/v1/leads", { body: { name: `w${i}` } }).then(ok)),
    );
    // 20 writers update the same 10 leads at once, 5 times each.
    await Promise.all(
      Array.from({ length: 20 }, async (_, writer) => {
        for (let round = 0; round < 5; round++) {
          const lead = leads[(writer + round) % leads.length] as { id: string };
          ok(
            await client.PATCH("/v1/leads/{lead_id}", {
              params: { path: { lead_id: lead.id } },
              body: { company: `c${writer}-${round}` },
            }),
          );
        }
      }),
    );
    const events = await follow(client);
    expect(events).toHaveLength(110);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, i) => i + 1));
    // Per lead the versions rise by one, and the last event holds what GET returns.
    for (const lead of leads) {
      const mine = events.filter((event) => event.data.object.id === lead.id);
      expect(mine.map((event) => event.data.object.version)).toEqual(mine.map((_, i) => i + 1));
      const current = ok(await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: lead.id } } }));
      expect(mine.at(-1)?.data.object).toEqual(current);
    }
    const captured = ok(
      await client.GET("/v1/events", { params: { query: { after_sequence: 0, type: "lead.captured", limit: 4 } } }),
    );
    expect(captured.data.map((event) => event.type)).toEqual(Array(4).fill("lead.captured"));
    expect(captured).toMatchObject({ has_more: true, next_cursor: null });
    const tail = ok(await client.GET("/v1/events", { params: { query: { after_sequence: 108 } } }));
    expect(tail.data.map((event) => event.sequence)).toEqual([109, 110]);
    expect(tail.has_more).toBe(false);
  });

  it("holds an empty answer with wait until an event commits, and answers empty when the time is up", async () => {
    const client = await clientFor(service());
    ok(await client.POST("/v1/leads", { body: { name: "first" } }));
    const started = Date.now();
    const empty = ok(await client.GET("/v1/events", { params: { query: { after_sequence: 1, wait: 1 } } }));
    expect(empty.data).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const waiting = client.GET("/v1/events", { params: { query: { after_sequence: 1, wait: 20 } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const writing = Date.now();
    const lead = ok(await client.POST("/v1/leads", { body: { name: "second" } }));
    const woken = ok(await waiting);
    expect(woken.data.map((event) => (event.data.object as { id: string }).id)).toEqual([lead.id]);
    // Well inside the 20 s it could have waited.
    expect(Date.now() - writing).toBeLessThan(5_000);
  });

  it.each([
    ["a negative position", "after_sequence=-1", "query.after_sequence"],
    ["a fractional position", "after_sequence=1.5", "query.after_sequence"],
    ["a position that is no number", "after_sequence=abc", "query.after_sequence"],
    ["an infinite position", "after_sequence=Infinity", "query.after_sequence"],
    ["wait over 30", "after_sequence=0&wait=31", "query.wait"],
    ["a negative wait", "after_sequence=0&wait=-1", "query.wait"],
    ["a cursor with after_sequence", `after_sequence=0&cursor=${newId("event")}`, "query.cursor"],
    ["a position past the newest event", "after_sequence=99", "query.after_sequence"],
  ])("refuses %s with a 400 naming the parameter", async (_, query, path) => {
    const { key } = await workspaceWithKey(service(), ["events:read"]);
    const response = await service().fetch(`/v1/events?${query}`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe("VALIDATION_FAILED");
    expect(problem.errors.map((error) => error.path)).toContain(path);
  });

  it("answers 410 EVENTS_EXPIRED with the oldest kept sequence for a position before the kept window", async () => {
    const { key, workspaceId } = await workspaceWithKey(service(), ALL_SCOPES);
    const client = Object.assign(createClient({ apiKey: key, baseUrl: service().url }), { workspaceId });
    for (let i = 0; i < 5; i++) ok(await client.POST("/v1/leads", { body: { name: `old ${i}` } }));
    const all = await follow(client);
    const third = all[2] as StreamEvent & { id: string };
    // Retention deletes by id (creation time): everything before the fourth event goes.
    const fourth = all[3] as StreamEvent & { id: string };
    expect(await deleteEventsBefore(service().service.db.pool, fourth.id, 100_000)).toBeGreaterThanOrEqual(3);
    expect(third.sequence).toBe(3);
    const gone = await service().fetch("/v1/events?after_sequence=1", { headers: { authorization: `Bearer ${key}` } });
    const viaSdk = await client.GET("/v1/events", { params: { query: { after_sequence: 1 } } });
    expect(viaSdk.error).toMatchObject({ status: 410, code: "EVENTS_EXPIRED", oldest_sequence: 4 });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({ code: "EVENTS_EXPIRED", oldest_sequence: 4 });
    // The last deleted position itself has no gap after it, and 0 starts at the oldest kept.
    expect(ok(await client.GET("/v1/events", { params: { query: { after_sequence: 3 } } })).data[0]?.sequence).toBe(4);
    expect(ok(await client.GET("/v1/events", { params: { query: { after_sequence: 0 } } })).data[0]?.sequence).toBe(4);
  });
});

describe("a process that dies between its commit and its pass", () => {
  it("leaves its events in the outbox, and every process's pass of each second numbers them", async () => {
    const { key, workspaceId } = await workspaceWithKey(service(), ALL_SCOPES);
    const client = Object.assign(createClient({ apiKey: key, baseUrl: service().url }), { workspaceId });
    ok(await client.POST("/v1/leads", { body: { name: "before" } }));
    // As a killed process leaves them: committed in the outbox, no pass asked for.
    const data = sampleObject("lead.captured", true) as { object: { id: string } };
    await withTransaction(service().service.db.pool, (db) => recordEvent(db, workspaceId, "lead.captured", data));
    const started = Date.now();
    const page = ok(await client.GET("/v1/events", { params: { query: { after_sequence: 1, wait: 10 } } }));
    expect(page.data.map((event) => [event.sequence, event.data.object.id])).toEqual([[2, data.object.id]]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("retention", () => {
  it("deletes events past 30 days by the pg-boss job's function, and says where the kept window starts", async () => {
    const { key, workspaceId } = await workspaceWithKey(service(), ALL_SCOPES);
    const client = Object.assign(createClient({ apiKey: key, baseUrl: service().url }), { workspaceId });
    for (let i = 0; i < 3; i++) ok(await client.POST("/v1/leads", { body: { name: `kept ${i}` } }));
    const pool = service().service.db.pool;
    // Today nothing is 30 days old: nothing goes.
    await pruneOldEvents(pool);
    expect(await follow(client)).toHaveLength(3);
    // Thirty-one days on, everything has.
    const result = await pruneOldEvents(pool, { now: Date.now() + 31 * 86_400_000, batchSize: 2 });
    expect(result).toMatchObject({ complete: true });
    expect(result.deleted).toBeGreaterThanOrEqual(3);
    expect(await follow(client)).toEqual([]);
    const gone = await client.GET("/v1/events", { params: { query: { after_sequence: 2 } } });
    expect(gone.error).toMatchObject({ status: 410, code: "EVENTS_EXPIRED", oldest_sequence: 4 });
    // A consumer that had everything waits for what comes next.
    expect(ok(await client.GET("/v1/events", { params: { query: { after_sequence: 3 } } })).data).toEqual([]);
    ok(await client.POST("/v1/leads", { body: { name: "new" } }));
    expect((await follow(client, 3)).map((event) => event.sequence)).toEqual([4]);
  });
});

describe("GET /v1/event-types", () => {
  it("lists every kind with its description and a self-contained JSON Schema of its data", async () => {
    const client = await clientFor(service());
    const catalog = ok(await client.GET("/v1/event-types"));
    expect(catalog.data.map((kind) => kind.type)).toEqual([
      "lead.captured",
      "lead.updated",
      "lead.deleted",
      "conversation.created",
      "conversation.updated",
      "message.created",
      "ticket.updated",
      "attribute_definition.created",
      "attribute_definition.updated",
      "attribute_definition.archived",
    ]);
    for (const kind of catalog.data) {
      expect(kind.description.length).toBeGreaterThan(10);
      const text = JSON.stringify(kind.data_schema);
      expect(text).not.toContain("#/components/");
      for (const [, name] of text.matchAll(/"#\/\$defs\/([^"]+)"/g)) {
        expect(Object.keys((kind.data_schema as { $defs: object }).$defs)).toContain(name);
      }
    }
  });
});

describe("GET /api/workspace/events (the console's session)", () => {
  it("lists the signed-in workspace's events of the mode Service-Mode chooses, and refuses another mode", async () => {
    const email = uniqueEmail("events");
    await registerAndVerify(service(), email);
    const session = await signIn(service(), email);
    const keyOf = async (mode: "live" | "test") =>
      (
        await createApiKey(service().service.db.pool, {
          workspaceId: session.workspaceId,
          name: mode,
          scopes: ["leads:write"],
          mode,
        })
      ).key;
    const make = async (key: string, name: string) =>
      ok(await createClient({ apiKey: key, baseUrl: service().url }).POST("/v1/leads", { body: { name } }));
    const live = await keyOf("live");
    await make(live, "one");
    await make(live, "two");
    const testLead = await make(await keyOf("test"), "three");
    const list = async (mode?: string) => {
      const answer = await service().fetch("/api/workspace/events", {
        headers: { cookie: session.cookie, ...(mode ? { "service-mode": mode } : {}) },
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    };
    const inLive = await list();
    expect(inLive.status).toBe(200);
    expect(
      (inLive.body.data as { livemode: boolean; sequence: number }[]).map((e) => [e.livemode, e.sequence]),
    ).toEqual([
      [true, 2],
      [true, 1],
    ]);
    const inTest = await list("test");
    expect(inTest.body.data).toMatchObject([{ livemode: false, sequence: 1, data: { object: { id: testLead.id } } }]);
    const wrong = await list("staging");
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body.errors)).toContain("service-mode");
  });
});
