/**
 * `trigger` against a stub of the API (a real node:http server on port 0): the calls each recipe makes, the refusal of
 * a live key before any request, and a recipe for every event type of the contract.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "./errors.js";
import { json, problem, type SeenRequest, startServer, type TestServer } from "./test-server.js";
import { RECIPES, trigger, triggerableTypes } from "./trigger.js";

const TEST_KEY = "sk_test_trigger";

/** The contract's `EventType` enum, read from the generated types the SDK compiles against. */
const CONTRACT_TYPES = (() => {
  const schema = readFileSync(new URL("./generated/schema.ts", import.meta.url), "utf8");
  const union = /^\s*EventType: (.+);$/m.exec(schema)?.[1] ?? "";
  return [...union.matchAll(/"([^"]+)"/g)].map((match) => match[1] as string);
})();

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * The API as far as trigger needs it: every write answers an object with a new id (a PATCH or DELETE the id of its
 * path), and `GET /v1/events?type=` lists an unrelated event first, then one of the object touched last.
 */
async function apiStub(types: readonly string[] = CONTRACT_TYPES): Promise<TestServer> {
  let made = 0;
  let touched = "";
  return startServer((request, res) => {
    const { pathname } = request.url;
    const list = (data: unknown[]) => json(res, 200, { object: "list", data, has_more: false, next_cursor: null });
    if (request.method === "GET" && pathname === "/v1/event-types") {
      return list(types.map((type) => ({ object: "event_type", type, description: `${type}.`, data_schema: {} })));
    }
    if (request.method === "GET" && pathname === "/v1/events") {
      const type = request.url.searchParams.get("type");
      const event = (id: string, sequence: number, object: string) => ({
        id,
        type,
        sequence,
        data: { object: { id: object } },
      });
      return list([event("evt_other", 43, "lead_other"), event("evt_made", 42, touched)]);
    }
    const prefix = pathname.endsWith("/messages") ? "msg" : (pathname.split("/")[2] ?? "").slice(0, 4);
    touched = request.method === "POST" ? `${prefix}_${++made}` : (pathname.split("/").at(-1) ?? "");
    if (request.method === "DELETE") return void res.writeHead(204).end();
    const body = JSON.parse(request.body) as Record<string, unknown>;
    json(res, request.method === "POST" ? 201 : 200, { status: "new", state: "open", number: 1, ...body, id: touched });
  });
}

const call = (request: SeenRequest) => `${request.method} ${request.url.pathname}`;
/** `PATCH /v1/leads/lead_1` as its recipe names it: `PATCH /v1/leads/{lead_id}`. */
const template = (line: string) =>
  line
    .replace(/\/leads\/lead_\w+/, "/leads/{lead_id}")
    .replace(/\/conversations\/conv_\w+/, "/conversations/{conversation_id}");

describe("trigger", () => {
  it.each([
    { type: "lead.captured", want: ["POST /v1/leads"] },
    { type: "lead.updated", want: ["POST /v1/leads", "PATCH /v1/leads/lead_1"] },
    { type: "lead.deleted", want: ["POST /v1/leads", "DELETE /v1/leads/lead_1"] },
    { type: "conversation.created", want: ["POST /v1/conversations"] },
    { type: "conversation.updated", want: ["POST /v1/conversations", "PATCH /v1/conversations/conv_1"] },
    { type: "message.created", want: ["POST /v1/conversations", "POST /v1/conversations/conv_1/messages"] },
    { type: "ticket.updated", want: ["POST /v1/tickets"] },
  ])("makes $type with $want, then finds its event", async ({ type, want }) => {
    server = await apiStub();
    const lines: string[] = [];
    const event = await trigger(type, { apiKey: TEST_KEY, baseUrl: server.url, log: (line) => lines.push(line) });
    expect(event).toMatchObject({ id: "evt_made", sequence: 42 });
    expect(server.requests.map(call)).toEqual(["GET /v1/event-types", ...want, "GET /v1/events"]);
    expect(server.requests.at(-1)?.url.searchParams.get("type")).toBe(type);
    const writes = server.requests.filter((request) => request.method !== "GET");
    // Every write carries its own Idempotency-Key, as the client puts one on each.
    expect(new Set(writes.map((request) => request.headers["idempotency-key"])).size).toBe(writes.length);
    expect(writes.every((request) => request.headers.authorization === `Bearer ${TEST_KEY}`)).toBe(true);
    // What --list says it does is what it does.
    expect(want.map(template)).toEqual(RECIPES[type as keyof typeof RECIPES].calls);
    // Each call on its own line with the ids it made, then the event.
    expect(lines.slice(1, -1).map((line) => line.split(" -> ")[0])).toEqual(want);
    expect(lines.at(-1)).toBe(`${type} evt_made (sequence 42)`);
  });

  it("makes each lead with an e-mail of its own", async () => {
    server = await apiStub();
    for (let i = 0; i < 2; i++)
      await trigger("lead.captured", { apiKey: TEST_KEY, baseUrl: server.url, log: () => {} });
    const emails = server.requests
      .filter((request) => request.method === "POST")
      .map((request) => (JSON.parse(request.body) as { email: string }).email);
    expect(emails).toEqual([
      expect.stringMatching(/^trigger\+\w+@example\.com$/),
      expect.stringMatching(/^trigger\+\w+@example\.com$/),
    ]);
    expect(emails[0]).not.toBe(emails[1]);
  });

  it.each(["sk_live_trigger", "whsec_not_a_key", ""])(
    "refuses %j before any request: it needs a test key",
    async (apiKey) => {
      server = await apiStub();
      const options = { apiKey, baseUrl: server.url, log: () => {} };
      await expect(trigger("lead.captured", options)).rejects.toThrow(/^trigger needs a test key \(sk_test_…\)/);
      await expect(triggerableTypes(options)).rejects.toThrow(/^trigger needs a test key/);
      expect(server.requests).toEqual([]);
    },
  );

  it("refuses a type the service does not know, listing the ones it does, and writes nothing", async () => {
    server = await apiStub();
    const refused = trigger("lead.created", { apiKey: TEST_KEY, baseUrl: server.url, log: () => {} });
    await expect(refused).rejects.toThrow(
      `Unknown event type "lead.created". The service's event types:\n  ${CONTRACT_TYPES.join("\n  ")}`,
    );
    expect(server.requests.map(call)).toEqual(["GET /v1/event-types"]);
  });

  it("stops at a call the service refuses, printing it, with the ApiError", async () => {
    server = await startServer((request, res) =>
      request.method === "GET"
        ? json(res, 200, { object: "list", data: [{ type: "ticket.updated" }], has_more: false, next_cursor: null })
        : problem(res, 403, "INSUFFICIENT_SCOPE"),
    );
    const lines: string[] = [];
    const refused = trigger("ticket.updated", {
      apiKey: TEST_KEY,
      baseUrl: server.url,
      log: (line) => lines.push(line),
    });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    expect(lines.at(-1)).toBe("POST /v1/tickets -> 403 INSUFFICIENT_SCOPE");
  });
});

describe("RECIPES", () => {
  it("has one recipe for each event type of the contract, and none other", () => {
    expect(CONTRACT_TYPES.length).toBeGreaterThan(0);
    expect(Object.keys(RECIPES).sort()).toEqual([...CONTRACT_TYPES].sort());
  });

  it("are listed by triggerableTypes, and a type of a newer service without one says so", async () => {
    server = await apiStub([...CONTRACT_TYPES, "lead.merged"]);
    const types = await triggerableTypes({ apiKey: TEST_KEY, baseUrl: server.url });
    expect(types.find((info) => info.type === "lead.updated")?.calls).toEqual(RECIPES["lead.updated"].calls);
    expect(types.find((info) => (info.type as string) === "lead.merged")?.calls).toBeUndefined();
  });
});
