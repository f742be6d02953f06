/**
 * One schema, one verdict (issue 41): the cases found by hand where the validator, the service's other checks and
 * the documents disagreed. Each answer is the one the documents give; each case failed before its fix.
 */
import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { json, workspaceWithKey } from "../helpers/accounts.ts";
import { type Json, judgeOf, readDocument } from "../helpers/contract-judges.ts";
import { expectProblem } from "../helpers/problem.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", API_RATE_LIMIT_PER_MINUTE: "1000000" });
let key: string;
const auth = () => ({ authorization: `Bearer ${key}` });
const post = (path: string, body: unknown) => service().fetch(path, json(body, auth()));
const fieldsOf = (problem: Record<string, unknown>) => (problem.errors as { path: string }[]).map((e) => e.path);

beforeAll(async () => {
  key = (await workspaceWithKey(service(), ALL_SCOPES)).key;
});

describe("formats, read in full by every check", () => {
  it.each(["a..b@example.com", ".a@example.com", "a@b"])(
    "refuses %s as a lead's e-mail, alone and as a batch item",
    async (email) => {
      const problem = await expectProblem(await post("/v1/leads", { email }), 400, "VALIDATION_FAILED");
      expect(fieldsOf(problem)).toEqual(["body.email"]);
      const batch = await post("/v1/leads/batch", { match_on: "email", items: [{ email }] });
      expect(batch.status).toBe(200);
      const [item] = ((await batch.json()) as { data: { result: string; problem?: Record<string, unknown> }[] }).data;
      expect(item?.result).toBe("failed");
      expect(fieldsOf(item?.problem ?? { errors: [] })).toEqual(["body.items.0.email"]);
    },
  );

  it.each(["https://1.1.1.1/é", "https://1.1.1.1/a|b", "https://1.1.1.1:0/hooks", "https://1.1.1.1:/hooks"])(
    "refuses %s as a webhook URL",
    async (url) => {
      const response = await post("/v1/webhooks", { url, events: ["lead.captured"] });
      expect(fieldsOf(await expectProblem(response, 400, "VALIDATION_FAILED"))).toContain("body.url");
    },
  );

  it("takes the URLs and addresses the formats allow", async () => {
    expect((await post("/v1/leads", { email: "o'brien+tag@mail.example.co.uk" })).status).toBe(201);
    const url = "https://1.1.1.1:8443/hooks/%C3%A9?a=1";
    expect((await post("/v1/webhooks", { url, events: ["lead.captured"] })).status).toBe(201);
  });
});

describe("the request as sent on the wire", () => {
  it("refuses a JSON body that is not UTF-8 with a 400 naming the field", async () => {
    // Latin-1 writes each character as its one byte: ÿþ are 0xFF 0xFE, which no UTF-8 sequence holds.
    const bytes = (text: string) => Uint8Array.from(Buffer.from(text, "latin1"));
    const send = (path: string, body: Uint8Array<ArrayBuffer>) =>
      service().fetch(path, { method: "POST", headers: { ...auth(), "content-type": "application/json" }, body });
    const lead = await expectProblem(
      await send("/v1/leads", bytes('{"name":"a\u00ff\u00feb"}')),
      400,
      "VALIDATION_FAILED",
    );
    expect(fieldsOf(lead)).toEqual(["body.name"]);
    const batch = bytes('{"match_on":"email","items":[{"email":"ada@example.com","name":"a\u00ff\u00feb"}]}');
    expect(fieldsOf(await expectProblem(await send("/v1/leads/batch", batch), 400, "VALIDATION_FAILED"))).toEqual([
      "body.items.0.name",
    ]);
    // U+FFFD sent as UTF-8 is a character like any other.
    expect((await post("/v1/leads", { name: "a\ufffdb" })).status).toBe(201);
  });

  it("answers a request line over 16 KiB with 431, a Request-Id and a problem", async () => {
    const { port } = new URL(service().url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(`GET /v1/leads?q=${"a".repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8");
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    const requestId = /\r\nRequest-Id: (req_\w+)/i.exec(head)?.[1];
    expect(requestId).toBeDefined();
    expect(head).toMatch(/\r\nContent-Type: application\/problem\+json/i);
    expect(JSON.parse(body)).toMatchObject({ status: 431, code: "HEADERS_TOO_LARGE", request_id: requestId });
  });

  it("answers HEAD wherever GET answers, with GET's status and headers and no body", async () => {
    const get = await service().fetch("/v1/leads?limit=1", { headers: auth() });
    const head = await service().fetch("/v1/leads?limit=1", { method: "HEAD", headers: auth() });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(head.headers.get("content-length")).toBe(String((await get.arrayBuffer()).byteLength));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect((await service().fetch("/v1/leads", { method: "HEAD" })).status).toBe(401);
    expect((await service().fetch("/v1/no-such-thing", { method: "HEAD", headers: auth() })).status).toBe(404);
    const refused = await service().fetch("/v1/leads/batch", { method: "HEAD", headers: auth() });
    expect([refused.status, refused.headers.get("allow")]).toEqual([405, "POST"]);
    const put = await service().fetch("/v1/leads", { method: "PUT", headers: auth() });
    expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
  });

  it("answers a path with a trailing slash as a path outside the contract", async () => {
    await expectProblem(await service().fetch("/v1/leads/", { headers: auth() }), 404, "ROUTE_NOT_FOUND");
  });

  it("refuses a content coding with 415 naming the codings taken, on a connection that stays usable", async () => {
    const headers = { ...auth(), "content-type": "application/json", "content-encoding": "br" };
    const response = await service().fetch("/v1/leads", { method: "POST", headers, body: '{"name":"x"}' });
    const problem = await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(problem.detail).toMatch(/Content-Encoding/);
    expect(response.headers.get("accept-encoding")).toBe("identity");
    expect((await post("/v1/leads", { name: "after" })).status).toBe(201);
  });
});

describe("who calls, before what was sent", () => {
  const badBody = { email: 5 };
  it("answers an invalid key 401 whatever the body", async () => {
    const response = await service().fetch("/v1/leads", json(badBody, { authorization: "Bearer sk_live_nope" }));
    await expectProblem(response, 401, "UNAUTHENTICATED");
  });

  it("answers a key without the write scope 403 whatever the body", async () => {
    const { key: readOnly } = await workspaceWithKey(service(), ["leads:read"]);
    const response = await service().fetch("/v1/leads", json(badBody, { authorization: `Bearer ${readOnly}` }));
    await expectProblem(response, 403, "INSUFFICIENT_SCOPE");
  });

  it("tells anyone that a path or a method does not exist, without credentials", async () => {
    await expectProblem(await service().fetch("/v1/no-such-thing", json(badBody)), 404, "ROUTE_NOT_FOUND");
    await expectProblem(await service().fetch("/v1/leads", json(badBody, {}, "PUT")), 405, "METHOD_NOT_ALLOWED");
  });
});

describe("integers in a query, one rule", () => {
  // A workspace with no event: a `wait` read as 10 would hold the answer 10 s.
  let quiet: Record<string, string>;
  beforeAll(async () => {
    quiet = { authorization: `Bearer ${(await workspaceWithKey(service(), ["events:read"])).key}` };
  });

  it.each(["1e1", "1.0", "-0", "01", "%2B1", "0x1"])("refuses wait=%s at once, naming it", async (text) => {
    const started = Date.now();
    const response = await service().fetch(`/v1/events?after_sequence=0&wait=${text}`, { headers: quiet });
    expect(fieldsOf(await expectProblem(response, 400, "VALIDATION_FAILED"))).toEqual(["query.wait"]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("takes an integer in decimal digits", async () => {
    const response = await service().fetch("/v1/events?after_sequence=0&wait=0&limit=20", { headers: quiet });
    expect(response.status).toBe(200);
  });
});

describe("the documents say every rule the server enforces", () => {
  const docs = { "3.1": readDocument("3.1"), "3.0": readDocument("3.0"), "2.0": readDocument("2.0") };
  /** The field paths of an operation's documented 400 refusals, in a 3.x document. */
  const refusals = (name: "3.1" | "3.0", path: string, method: string) =>
    Object.values(docs[name].paths[path][method].responses["400"].content["application/problem+json"].examples as Json)
      .flatMap((example) => (example.value.errors ?? []) as { path: string }[])
      .map((error) => error.path);

  it.each(["3.1", "3.0"] as const)("%s documents the refusals no schema can say", (name) => {
    expect(refusals(name, "/v1/events", "get")).toEqual(
      expect.arrayContaining(["query.cursor", "query.not_a_parameter"]),
    );
    expect(refusals(name, "/v1/webhooks/{webhook_id}/stats", "get")).toContain("query.since");
    expect(refusals(name, "/v1/webhooks/{webhook_id}/recover", "post")).toContain("body.since");
    expect(refusals(name, "/v1/leads", "post")).toContain("query.not_a_parameter");
  });

  it("names `since`, the field sent, when a recovery without `until` starts in the future", async () => {
    const hook = (await (
      await post("/v1/webhooks", { url: "https://1.1.1.1/x", events: ["lead.captured"] })
    ).json()) as {
      id: string;
    };
    const response = await post(`/v1/webhooks/${hook.id}/recover`, { since: "2999-01-01T00:00:00Z" });
    expect(fieldsOf(await expectProblem(response, 400, "VALIDATION_FAILED"))).toEqual(["body.since"]);
  });

  it.each(["3.1", "3.0"] as const)("%s refuses custom attributes nested past 5 levels, as the server does", (name) => {
    const judge = judgeOf(name, docs[name]);
    const nest = (levels: number): unknown => (levels === 0 ? 1 : { next: nest(levels - 1) });
    expect(judge.body("/v1/leads", "post", { name: "n", custom_attributes: { a: nest(5) } })).toBe(true);
    expect(judge.body("/v1/leads", "post", { name: "n", custom_attributes: { a: nest(6) } })).toBe(false);
  });

  it("2.0 refuses a lead with none of its identifying fields, and tells the kinds of event apart", () => {
    const judge = judgeOf("2.0", docs["2.0"]);
    expect(judge.body("/v1/leads", "post", {})).toBe(false);
    expect(judge.body("/v1/leads", "post", { name: "Ada" })).toBe(true);
    expect(docs["2.0"].definitions.Event).toMatchObject({ discriminator: "type", required: ["type"] });
    expect(docs["2.0"].definitions["lead.captured"].allOf).toEqual([
      { $ref: "#/definitions/Event" },
      { $ref: "#/definitions/LeadCapturedEvent" },
    ]);
  });

  it.each(["3.1", "3.0", "2.0"] as const)("%s refuses U+0000 and year 0000 where the server does", (name) => {
    const judge = judgeOf(name, docs[name]);
    expect(judge.body("/v1/leads", "post", { name: "a\u0000b" })).toBe(false);
    expect(judge.body("/v1/tickets", "post", { subject: "s", due_at: "0000-01-01T00:00:00Z" })).toBe(false);
    expect(judge.body("/v1/tickets", "post", { subject: "s", due_at: "2016-12-31T23:59:60Z" })).toBe(true);
  });
});
