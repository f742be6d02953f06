/**
 * Conditional requests from outside (issue 43): every versioned object has a strong `ETag` of its id and version; a
 * read with a matching `If-None-Match` is a 304 that costs no budget; a change with a stale `If-Match` (or a batch
 * item's stale `expected_version`) is a 412 that changes nothing and records no event.
 */
import { createClient } from "@service/sdk";
import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService();

/** A fresh key (its own budget) and a caller that sends JSON with it. */
async function caller() {
  const { key } = await workspaceWithKey(service(), ALL_SCOPES);
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await service().fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
  };
}

type Caller = Awaited<ReturnType<typeof caller>>;

/** The events of the workspace about one object, in order. */
async function eventsAbout(call: Caller, id: string): Promise<string[]> {
  const { body } = await call("GET", "/v1/events?limit=100");
  return (body.data as { type: string; data: { object: { id: string } } }[])
    .filter((event) => event.data.object.id === id)
    .map((event) => event.type);
}

/** Asserts a problem+json answer with this status and code. */
function expectProblem(answer: Awaited<ReturnType<Caller>>, status: number, code: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ status, code, request_id: answer.headers.get("request-id") });
}

/** `r` of `RateLimit: "api-key";r=…;t=…`. */
function remaining(headers: Headers): number {
  return Number(/;r=(\d+)/.exec(headers.get("ratelimit") ?? "")?.[1]);
}

describe("ETag", () => {
  it("is the object's id and version on every create, read and change, and changes with the version", async () => {
    const call = await caller();
    const lead = await call("POST", "/v1/leads", { email: "etag@example.com" });
    expect(lead.status).toBe(201);
    expect(lead.headers.get("etag")).toBe(`"${lead.body.id}.1"`);
    const conversation = await call("POST", "/v1/conversations", {
      subject: "etag",
      message: { author: { type: "agent", id: "a@example.com" }, body: "hello" },
    });
    expect(conversation.headers.get("etag")).toBe(`"${conversation.body.id}.${conversation.body.version}"`);
    const ticket = await call("POST", "/v1/tickets", { subject: "etag" });
    expect(ticket.headers.get("etag")).toBe(`"${ticket.body.id}.1"`);
    const message = await call("POST", `/v1/conversations/${conversation.body.id}/messages`, {
      author: { type: "agent", id: "a@example.com" },
      body: "again",
    });
    expect(message.headers.get("etag")).toBe(`"${message.body.id}.1"`);

    for (const path of [
      `/v1/leads/${lead.body.id}`,
      `/v1/conversations/${conversation.body.id}`,
      `/v1/tickets/${ticket.body.id}`,
      `/v1/conversations/${conversation.body.id}/messages/${message.body.id}`,
    ]) {
      const read = await call("GET", path);
      expect(read.status).toBe(200);
      expect(read.headers.get("etag")).toBe(`"${read.body.id}.${read.body.version}"`);
    }

    const changed = await call("PATCH", `/v1/leads/${lead.body.id}`, { name: "Ada" });
    expect(changed.headers.get("etag")).toBe(`"${lead.body.id}.2"`);
    // A change that changes nothing keeps the version, and so the tag.
    const same = await call("PATCH", `/v1/leads/${lead.body.id}`, { name: "Ada" });
    expect(same.headers.get("etag")).toBe(`"${lead.body.id}.2"`);
    // Lists carry none: each object in them has its `version`.
    expect((await call("GET", "/v1/leads")).headers.get("etag")).toBeNull();
  });
});

describe("If-None-Match", () => {
  it("answers 304 with no body while the object is unchanged, then 200 once it changed", async () => {
    const call = await caller();
    const ticket = await call("POST", "/v1/tickets", { subject: "poll me" });
    const path = `/v1/tickets/${ticket.body.id}`;
    const tag = ticket.headers.get("etag") as string;

    const unchanged = await call("GET", path, undefined, { "if-none-match": tag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe("");
    expect(unchanged.headers.get("etag")).toBe(tag);
    expect(unchanged.headers.get("request-id")).toMatch(/^req_/);
    // A weak form of the tag, a list holding it, and `*` match as well (RFC 9110 §13.1.2).
    for (const header of [`W/${tag}`, `"other", ${tag}`, "*"]) {
      expect((await call("GET", path, undefined, { "if-none-match": header })).status).toBe(304);
    }
    expect((await call("GET", path, undefined, { "if-none-match": '"other"' })).status).toBe(200);

    await call("PATCH", path, { priority: "high" });
    const changed = await call("GET", path, undefined, { "if-none-match": tag });
    expect(changed.status).toBe(200);
    expect(changed.body.priority).toBe("high");
    expect(changed.headers.get("etag")).toBe(`"${ticket.body.id}.2"`);
  });

  it("costs no request of the budget: RateLimit's remaining is the same before and after 100 of them", async () => {
    const call = await caller();
    const lead = await call("POST", "/v1/leads", { email: "budget@example.com" });
    const path = `/v1/leads/${lead.body.id}`;
    const tag = lead.headers.get("etag") as string;
    const before = remaining((await call("GET", path)).headers);
    for (let i = 0; i < 100; i++) {
      const answer = await call("GET", path, undefined, { "if-none-match": tag });
      expect(answer.status).toBe(304);
      expect(remaining(answer.headers)).toBe(before);
    }
    const after = await call("GET", path);
    expect(remaining(after.headers)).toBe(before - 1);
  });

  it("answers HEAD the same way, and a conversation's tag goes stale when a message is added to it", async () => {
    const call = await caller();
    const conversation = await call("POST", "/v1/conversations", { subject: "tags" });
    const path = `/v1/conversations/${conversation.body.id}`;
    const tag = conversation.headers.get("etag") as string;
    expect((await call("HEAD", path, undefined, { "if-none-match": tag })).status).toBe(304);
    await call("POST", `${path}/messages`, { author: { type: "agent", id: "a@example.com" }, body: "news" });
    const read = await call("GET", path, undefined, { "if-none-match": tag });
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBe(`"${conversation.body.id}.${conversation.body.version + 1}"`);
  });

  it("is a 404 for an object that does not exist, as without it", async () => {
    const call = await caller();
    const answer = await call("GET", "/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7", undefined, { "if-none-match": "*" });
    expectProblem(answer, 404, "LEAD_NOT_FOUND");
  });
});

describe("If-None-Match and a spent budget", () => {
  const limited = useTestService({ API_RATE_LIMIT_PER_MINUTE: "5" });

  it("answers 304s while the budget is exactly spent, and 429 to every read, found or not, once it is over", async () => {
    const { key } = await workspaceWithKey(limited(), ALL_SCOPES);
    const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
      const response = await limited().fetch(path, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await response.arrayBuffer();
      return response;
    };
    const lead = await send("POST", "/v1/leads", {}, { email: "spent@example.com" });
    const path = `/v1/leads/${(lead.headers.get("location") ?? "").split("/").pop()}`;
    const tag = lead.headers.get("etag") as string;
    for (let i = 0; i < 4; i++) expect((await send("GET", path)).status).toBe(200);
    const atZero = await send("GET", path, { "if-none-match": tag });
    expect(atZero.status).toBe(304);
    expect(remaining(atZero.headers)).toBe(0);
    expect((await send("GET", path)).status).toBe(429);
    expect((await send("GET", path, { "if-none-match": tag })).status).toBe(429);
    const missing = "/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7";
    expect((await send("GET", missing, { "if-none-match": "*" })).status).toBe(429);
  });

  it("spends a request on a conditional read that finds nothing", async () => {
    const { key } = await workspaceWithKey(limited(), ALL_SCOPES);
    const headers = { authorization: `Bearer ${key}`, "if-none-match": "*" };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await limited().fetch("/v1/tickets/tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K", { headers });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
  });
});

describe("If-Match", () => {
  it("changes only the version it names: a stale tag is a 412 with the current ETag, no change and no event", async () => {
    const call = await caller();
    const ticket = await call("POST", "/v1/tickets", { subject: "sync me" });
    const path = `/v1/tickets/${ticket.body.id}`;
    const first = ticket.headers.get("etag") as string;
    const applied = await call("PATCH", path, { priority: "high" }, { "if-match": first });
    expect(applied.status).toBe(200);
    const current = applied.headers.get("etag") as string;

    const stale = await call("PATCH", path, { priority: "low" }, { "if-match": first });
    expectProblem(stale, 412, "PRECONDITION_FAILED");
    expect(stale.headers.get("etag")).toBe(current);
    expect((await call("GET", path)).body).toMatchObject({ priority: "high", version: 2 });
    expect(await eventsAbout(call, ticket.body.id)).toEqual(["ticket.updated", "ticket.updated"]);

    // A weak tag never matches If-Match (strong comparison, RFC 9110 §13.1.1); `*` matches any current version.
    expectProblem(
      await call("PATCH", path, { priority: "low" }, { "if-match": `W/${current}` }),
      412,
      "PRECONDITION_FAILED",
    );
    expect((await call("PATCH", path, { priority: "low" }, { "if-match": "*" })).status).toBe(200);
  });

  it("guards leads' and conversations' changes and a lead's deletion the same way", async () => {
    const call = await caller();
    const lead = await call("POST", "/v1/leads", { email: "guarded@example.com" });
    const leadPath = `/v1/leads/${lead.body.id}`;
    const stale = '"' + `${lead.body.id}.7` + '"';
    expectProblem(await call("PATCH", leadPath, { name: "x" }, { "if-match": stale }), 412, "PRECONDITION_FAILED");
    expectProblem(await call("DELETE", leadPath, undefined, { "if-match": stale }), 412, "PRECONDITION_FAILED");
    expect((await call("GET", leadPath)).status).toBe(200);
    expect((await call("DELETE", leadPath, undefined, { "if-match": lead.headers.get("etag") as string })).status).toBe(
      204,
    );
    expect((await call("GET", leadPath)).status).toBe(404);

    const conversation = await call("POST", "/v1/conversations", { subject: "guarded" });
    const conversationPath = `/v1/conversations/${conversation.body.id}`;
    expectProblem(
      await call("PATCH", conversationPath, { state: "closed" }, { "if-match": '"conv_other.1"' }),
      412,
      "PRECONDITION_FAILED",
    );
    const closed = await call(
      "PATCH",
      conversationPath,
      { state: "closed" },
      {
        "if-match": conversation.headers.get("etag") as string,
      },
    );
    expect(closed.body.state).toBe("closed");
  });

  it("lets exactly one of 50 concurrent changes with the same If-Match through, with one ticket.updated", async () => {
    const call = await caller();
    const ticket = await call("POST", "/v1/tickets", { subject: "contended" });
    const tag = ticket.headers.get("etag") as string;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call("PATCH", `/v1/tickets/${ticket.body.id}`, { assignee: `agent-${i}@example.com` }, { "if-match": tag }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(49);
    const winner = answers.find((answer) => answer.status === 200)?.body;
    for (const refused of answers.filter((answer) => answer.status === 412)) {
      expect(refused.headers.get("etag")).toBe(`"${ticket.body.id}.2"`);
    }
    expect((await call("GET", `/v1/tickets/${ticket.body.id}`)).body.assignee).toBe(winner.assignee);
    expect(await eventsAbout(call, ticket.body.id)).toEqual(["ticket.updated", "ticket.updated"]);
  });

  it("replays a keyed change's answer, tag included, when it is retried", async () => {
    const call = await caller();
    const lead = await call("POST", "/v1/leads", { email: "replay@example.com" });
    const headers = { "if-match": lead.headers.get("etag") as string, "idempotency-key": "etag-replay-1" };
    const first = await call("PATCH", `/v1/leads/${lead.body.id}`, { name: "Once" }, headers);
    const again = await call("PATCH", `/v1/leads/${lead.body.id}`, { name: "Once" }, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.status).toBe(200);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(again.body).toEqual(first.body);
  });
});

describe("a batch item's expected_version", () => {
  it("fails that item alone when stale or matching nothing, and applies it when current", async () => {
    const call = await caller();
    const made = await call("POST", "/v1/leads/batch", {
      match_on: "external_id",
      items: [
        { external_id: "ev-1", name: "One" },
        { external_id: "ev-2", name: "Two" },
      ],
    });
    expect(made.body.data.map((item: { result: string }) => item.result)).toEqual(["created", "created"]);
    const answer = await call("POST", "/v1/leads/batch", {
      match_on: "external_id",
      items: [
        { external_id: "ev-1", name: "One again", expected_version: 1 },
        { external_id: "ev-2", name: "Two again", expected_version: 5 },
        { external_id: "ev-3", name: "Three", expected_version: 1 },
        { external_id: "ev-4", name: "Four" },
      ],
    });
    expect(answer.status).toBe(200);
    const [one, two, three, four] = answer.body.data;
    expect(one).toMatchObject({ result: "updated", object: { name: "One again", version: 2 } });
    expect(two).toMatchObject({ result: "failed", problem: { status: 412, code: "PRECONDITION_FAILED" } });
    expect(three).toMatchObject({ result: "failed", problem: { status: 412, code: "PRECONDITION_FAILED" } });
    expect(four).toMatchObject({ result: "created", object: { name: "Four" } });
    // The failed items changed nothing: ev-2 keeps its name and version, and ev-3 was not created.
    const list = await call("GET", "/v1/leads?external_id=ev-2");
    expect(list.body.data[0]).toMatchObject({ name: "Two", version: 1 });
    expect((await call("GET", "/v1/leads?external_id=ev-3")).body.data).toEqual([]);

    const tickets = await call("POST", "/v1/tickets/batch", {
      match_on: "external_id",
      items: [{ external_id: "t-1", subject: "made" }],
    });
    const stale = await call("POST", "/v1/tickets/batch", {
      match_on: "external_id",
      items: [{ external_id: "t-1", subject: "changed", expected_version: tickets.body.data[0].object.version + 1 }],
    });
    expect(stale.body.data[0]).toMatchObject({ result: "failed", problem: { code: "PRECONDITION_FAILED" } });
    const refused = await call("POST", "/v1/tickets/batch", {
      match_on: "external_id",
      items: [{ external_id: "t-1", subject: "changed", expected_version: 0 }],
    });
    expect(refused.body.data[0]).toMatchObject({
      result: "failed",
      problem: { code: "VALIDATION_FAILED", errors: [{ path: "body.items.0.expected_version" }] },
    });
  });
});

describe("the SDK", () => {
  it("passes ifNoneMatch and ifMatch, and returns notModified as a result, not an error", async () => {
    const { key } = await workspaceWithKey(service(), ALL_SCOPES);
    const client = createClient({ apiKey: key, baseUrl: service().url, maxRetries: 0 });
    const made = await client.POST("/v1/tickets", { body: { subject: "sdk" } });
    const id = made.data?.id as string;

    const first = await client.tickets.get(id);
    if (first.error || first.notModified) throw new Error("expected the ticket");
    expect(first.etag).toBe(`"${id}.1"`);
    const again = await client.tickets.get(id, { ifNoneMatch: first.etag });
    expect(again).toMatchObject({ notModified: true, etag: first.etag });
    expect(again.error).toBeUndefined();
    expect(again.response.status).toBe(304);

    const applied = await client.tickets.update(id, { priority: "urgent" }, { ifMatch: first.etag });
    expect(applied.data?.priority).toBe("urgent");
    expect(applied.etag).toBe(`"${id}.2"`);
    const stale = await client.tickets.update(id, { priority: "low" }, { ifMatch: first.etag });
    expect(stale.error?.code).toBe("PRECONDITION_FAILED");
    expect(stale.response.headers.get("etag")).toBe(applied.etag);

    const changedSince = await client.tickets.get(id, { ifNoneMatch: first.etag });
    expect(changedSince.notModified).toBe(false);
    expect(changedSince.data?.priority).toBe("urgent");

    const lead = await client.POST("/v1/leads", { body: { email: "sdk-etag@example.com" } });
    const leadId = lead.data?.id as string;
    const refused = await client.leads.remove(leadId, { ifMatch: `"${leadId}.9"` });
    expect(refused.error?.code).toBe("PRECONDITION_FAILED");
    expect((await client.leads.remove(leadId, { ifMatch: `"${leadId}.1"` })).response.status).toBe(204);
    expect((await client.leads.get(leadId)).error?.code).toBe("LEAD_NOT_FOUND");
    const conversation = await client.POST("/v1/conversations", { body: { subject: "sdk" } });
    const closed = await client.conversations.update(
      conversation.data?.id as string,
      { state: "closed" },
      { ifMatch: conversation.response.headers.get("etag") ?? "" },
    );
    expect(closed.data?.state).toBe("closed");
  });
});
