/**
 * Attribute definitions from outside (issue 43): a definition types `custom_attributes.<key>` of leads, conversations
 * or tickets. A write whose value does not fit is a 400 naming the field (a batch item fails alone); keys without a
 * definition take anything, as v1.0 clients expect; a definition that existing values do not fit is a 409 with their
 * count and ids, and nothing changes; archiving stops the checks and keeps the values.
 */
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../server/src/cli/admin-commands.ts";
import { newId } from "../../server/src/lib/ids.ts";
import { registerAndVerify, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "1000000" });

type Answer = { status: number; body: Record<string, unknown> & { errors?: { path: string; message: string }[] } };

/** The API key each caller sends. */
const keys = new WeakMap<object, string>();
const keyOf = (call: object) => keys.get(call) as string;

async function caller(scopes = ALL_SCOPES) {
  const { key } = await workspaceWithKey(service(), scopes);
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await service().fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : {} };
  };
  keys.set(call, key);
  return call;
}

type Call = Awaited<ReturnType<typeof caller>>;

const PATHS = { lead: "/v1/leads", conversation: "/v1/conversations", ticket: "/v1/tickets" } as const;
const BASE = { lead: { name: "Ada" }, conversation: { subject: "Hi" }, ticket: { subject: "Help" } } as const;

async function define(call: Call, definition: Record<string, unknown>) {
  const answer = await call("POST", "/v1/attribute-definitions", { label: "A field", ...definition });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as { id: string; version: number };
}

/** The paths of a 400's field errors. */
function refused(answer: Answer): string[] {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.code).toBe("VALIDATION_FAILED");
  return (answer.body.errors ?? []).map((error) => error.path);
}

describe("a definition's type", () => {
  // Each type with a value it takes and one it refuses.
  const TYPES: [string, unknown, unknown, string[]?][] = [
    ["string", "pro", 7],
    ["number", 12.5, "12"],
    ["boolean", true, "yes"],
    ["date", "2026-11-28", "2026-02-30"],
    ["datetime", "2026-11-28T09:30:00+01:00", "2026-11-28"],
    ["enum", "pro", "gold", ["free", "pro"]],
    ["multi_enum", ["a", "b"], ["a", "a"], ["a", "b", "c"]],
    ["email", "ada@example.com", "ada@"],
    ["url", "https://example.com/x", "ftp://example.com"],
  ];

  const CASES = (["lead", "conversation", "ticket"] as const).flatMap((object) =>
    TYPES.map(([type, good, bad, options]) => ({ object, type, good, bad, options })),
  );

  it.each(CASES)(
    "$object $type: takes a fitting value, refuses another with 400 naming the key",
    async ({ object, type, good, bad, options }) => {
      const call = await caller();
      await define(call, { object_type: object, key: "field", type, ...(options && { options }) });
      const made = await call("POST", PATHS[object], {
        ...BASE[object],
        custom_attributes: { field: good, free: [1] },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.custom_attributes).toEqual({ field: good, free: [1] });
      expect(
        refused(await call("POST", PATHS[object], { ...BASE[object], custom_attributes: { field: bad } })),
      ).toEqual(["body.custom_attributes.field"]);
      const id = made.body.id as string;
      expect(refused(await call("PATCH", `${PATHS[object]}/${id}`, { custom_attributes: { field: bad } }))).toEqual([
        "body.custom_attributes.field",
      ]);
      // Nothing was stored by the refusals.
      expect((await call("GET", `${PATHS[object]}/${id}`)).body.custom_attributes).toEqual({ field: good, free: [1] });
    },
  );
});

describe("required and unique", () => {
  it("asks a value of a required key on create and change, and one unique value per object", async () => {
    const call = await caller();
    await define(call, { object_type: "lead", key: "tier", type: "string", required: true });
    await define(call, { object_type: "lead", key: "crm_id", type: "string", unique: true });
    expect(refused(await call("POST", "/v1/leads", { name: "No tier" }))).toEqual(["body.custom_attributes.tier"]);
    const first = await call("POST", "/v1/leads", { name: "A", custom_attributes: { tier: "1", crm_id: "c-1" } });
    expect(first.status).toBe(201);
    const again = await call("POST", "/v1/leads", { name: "B", custom_attributes: { tier: "1", crm_id: "c-1" } });
    expect(refused(again)).toEqual(["body.custom_attributes.crm_id"]);
    expect(again.body.errors?.[0]?.message).toContain(first.body.id as string);
    // Its own value is not another's: a change that keeps it is fine; dropping the required key is not.
    const id = first.body.id as string;
    expect((await call("PATCH", `/v1/leads/${id}`, { custom_attributes: { tier: "2", crm_id: "c-1" } })).status).toBe(
      200,
    );
    expect(refused(await call("PATCH", `/v1/leads/${id}`, { custom_attributes: { crm_id: "c-1" } }))).toEqual([
      "body.custom_attributes.tier",
    ]);
  });

  it("gives each of concurrent creates with one unique value its verdict: exactly one is made", async () => {
    const call = await caller();
    await define(call, { object_type: "ticket", key: "zendesk_id", type: "number", unique: true });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("POST", "/v1/tickets", { subject: "dup", custom_attributes: { zendesk_id: 42 } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(9).fill(400)]);
  });
});

describe("batches", () => {
  it("fails alone the item whose value does not fit, naming it by index", async () => {
    const call = await caller();
    await define(call, { object_type: "lead", key: "plan", type: "enum", options: ["free", "pro"] });
    await define(call, { object_type: "lead", key: "crm_id", type: "string", unique: true });
    const answer = await call("POST", "/v1/leads/batch", {
      match_on: "external_id",
      items: [
        { external_id: "b-1", custom_attributes: { plan: "pro", crm_id: "x" } },
        { external_id: "b-2", custom_attributes: { plan: "gold" } },
        { external_id: "b-3", custom_attributes: { crm_id: "x" } },
        { external_id: "b-4", custom_attributes: { plan: "free" } },
      ],
    });
    expect(answer.status).toBe(200);
    const data = answer.body.data as { result: string; problem?: { errors: { path: string }[] } }[];
    expect(data.map((item) => item.result)).toEqual(["created", "failed", "failed", "created"]);
    expect(data[1]?.problem?.errors.map((error) => error.path)).toEqual(["body.items.1.custom_attributes.plan"]);
    expect(data[2]?.problem?.errors.map((error) => error.path)).toEqual(["body.items.2.custom_attributes.crm_id"]);
    const update = await call("POST", "/v1/leads/batch", {
      match_on: "external_id",
      items: [{ external_id: "b-4", custom_attributes: { plan: "enterprise" } }],
    });
    const [item] = update.body.data as { result: string; problem?: { errors: { path: string }[] } }[];
    expect(item?.problem?.errors.map((error) => error.path)).toEqual(["body.items.0.custom_attributes.plan"]);
  });
});

describe("definitions against existing values", () => {
  it("refuses a definition the stored values do not fit with their count and ids, and changes nothing", async () => {
    const call = await caller();
    const ids: string[] = [];
    for (const seats of [3, "three", "four", 5]) {
      ids.push((await call("POST", "/v1/tickets", { subject: "s", custom_attributes: { seats } })).body.id as string);
    }
    const refusal = await call("POST", "/v1/attribute-definitions", {
      object_type: "ticket",
      key: "seats",
      label: "Seats",
      type: "number",
    });
    expect(refusal.status).toBe(409);
    expect(refusal.body).toMatchObject({ code: "ATTRIBUTE_VALUES_CONFLICT", conflicting_count: 2 });
    expect(refusal.body.conflicting_ids).toEqual([ids[1], ids[2]].sort());
    expect((await call("GET", "/v1/attribute-definitions?object_type=ticket")).body.data).toEqual([]);
    // Fixed, the same definition is made; making it required is refused while a ticket has no seats.
    for (const id of [ids[1], ids[2]]) await call("PATCH", `/v1/tickets/${id}`, { custom_attributes: { seats: 4 } });
    await call("POST", "/v1/tickets", { subject: "no seats" });
    const made = await define(call, { object_type: "ticket", key: "seats", type: "number" });
    const required = await call("PATCH", `/v1/attribute-definitions/${made.id}`, { required: true });
    expect(required.body).toMatchObject({ code: "ATTRIBUTE_VALUES_CONFLICT", conflicting_count: 1 });
  });

  it("lets an enum gain options, and refuses removing one that values still use", async () => {
    const call = await caller();
    const plan = await define(call, { object_type: "lead", key: "plan", type: "enum", options: ["free", "pro"] });
    await call("POST", "/v1/leads", { name: "P", custom_attributes: { plan: "pro" } });
    const grown = await call("PATCH", `/v1/attribute-definitions/${plan.id}`, { options: ["free", "pro", "team"] });
    expect(grown.body).toMatchObject({ options: ["free", "pro", "team"], version: 2 });
    expect((await call("POST", "/v1/leads", { name: "T", custom_attributes: { plan: "team" } })).status).toBe(201);
    const removal = await call("PATCH", `/v1/attribute-definitions/${plan.id}`, { options: ["free", "team"] });
    expect(removal.body).toMatchObject({ code: "ATTRIBUTE_VALUES_CONFLICT", conflicting_count: 1 });
    const unused = await call("PATCH", `/v1/attribute-definitions/${plan.id}`, { options: ["pro", "team"] });
    expect(unused.body).toMatchObject({ options: ["pro", "team"], version: 3 });
    await call("POST", `/v1/attribute-definitions/${plan.id}/archive`);

    // Each change is an event of the stream, in order, with the definition as it became: a mirror learns the schema.
    const feed = await call("GET", "/v1/events?after_sequence=0&limit=100");
    const changes = (feed.body.data as { type: string; sequence: number; data: Record<string, unknown> }[]).filter(
      (event) => event.type.startsWith("attribute_definition."),
    );
    expect(changes.map((event) => event.type)).toEqual([
      "attribute_definition.created",
      "attribute_definition.updated",
      "attribute_definition.updated",
      "attribute_definition.archived",
    ]);
    expect(changes[2]?.data).toMatchObject({
      object: { id: plan.id, version: 3, options: ["pro", "team"] },
      changed_fields: ["options"],
      previous_attributes: { options: ["free", "pro", "team"] },
    });
    expect(changes[3]?.data).toMatchObject({ object: { id: plan.id, version: 4, archived_at: expect.any(String) } });
  });

  it("stops checking an archived definition and keeps the values; its key stays taken", async () => {
    const call = await caller();
    const score = await define(call, { object_type: "conversation", key: "score", type: "number" });
    const conversation = await call("POST", "/v1/conversations", { subject: "s", custom_attributes: { score: 1 } });
    refused(await call("POST", "/v1/conversations", { subject: "s", custom_attributes: { score: "high" } }));
    const archived = await call("POST", `/v1/attribute-definitions/${score.id}/archive`);
    expect(archived.body.archived_at).toEqual(expect.any(String));
    expect(
      (await call("POST", "/v1/conversations", { subject: "s", custom_attributes: { score: "high" } })).status,
    ).toBe(201);
    expect((await call("GET", `/v1/conversations/${conversation.body.id}`)).body.custom_attributes).toEqual({
      score: 1,
    });
    const list = await call("GET", "/v1/attribute-definitions");
    expect(list.body.data).toEqual([]);
    expect((await call("GET", "/v1/attribute-definitions?include_archived=true")).body.data).toHaveLength(1);
    const again = await call("POST", "/v1/attribute-definitions", {
      object_type: "conversation",
      key: "score",
      label: "Score",
      type: "string",
    });
    expect(again.body.code).toBe("ATTRIBUTE_KEY_TAKEN");
    expect((await call("PATCH", `/v1/attribute-definitions/${score.id}`, { label: "x" })).status).toBe(409);
  });
});

describe("the definitions themselves", () => {
  it("refuses malformed rules, stops at 100 per object, and needs the attributes scopes", async () => {
    const call = await caller();
    for (const [body, path] of [
      [{ type: "enum" }, "body.options"],
      [{ type: "string", options: ["a"] }, "body.options"],
      [{ type: "enum", options: ["a", "a"] }, "body.options"],
      [{ type: "multi_enum", options: ["a"], unique: true }, "body.unique"],
      [{ type: "string", key: "Bad-Key" }, "body.key"],
    ] as const) {
      const answer = await call("POST", "/v1/attribute-definitions", {
        object_type: "lead",
        key: "k",
        label: "K",
        ...body,
      });
      expect(refused(answer)).toContain(path);
    }
    for (let i = 0; i < 100; i++) await define(call, { object_type: "ticket", key: `f${i}`, type: "string" });
    const over = await call("POST", "/v1/attribute-definitions", {
      object_type: "ticket",
      key: "f100",
      label: "F",
      type: "string",
    });
    expect(over.body.code).toBe("RESOURCE_LIMIT_REACHED");
    expect((await define(call, { object_type: "lead", key: "f100", type: "string" })).version).toBe(1);

    const reader = await caller(["leads:read"]);
    expect((await reader("GET", "/v1/attribute-definitions")).body.code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("reading and changing one definition", () => {
  it("reads it with its ETag, answers a matching If-None-Match with 304, and refuses a stale If-Match", async () => {
    const call = await caller();
    const made = await define(call, { object_type: "lead", key: "tier", type: "string" });
    const path = `/v1/attribute-definitions/${made.id}`;
    const key = (await workspaceWithKey(service(), ALL_SCOPES)).key;
    const read = await service().fetch(path, { headers: { authorization: `Bearer ${key}` } });
    expect(read.status).toBe(404); // another workspace's definition
    const answer = await call("GET", path);
    expect(answer.body).toMatchObject({ id: made.id, key: "tier", archived_at: null, version: 1 });
    const raw = (headers: Record<string, string>, method = "GET", body?: unknown) =>
      service().fetch(path, {
        method,
        headers: { authorization: `Bearer ${keyOf(call)}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const tag = `"${made.id}.1"`;
    expect((await raw({ "if-none-match": tag })).status).toBe(304);
    const renamed = await raw({ "if-match": tag }, "PATCH", { label: "Tier" });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("etag")).toBe(`"${made.id}.2"`);
    const stale = await raw({ "if-match": tag }, "PATCH", { label: "Level" });
    expect(stale.status).toBe(412);
    expect((await call("GET", path)).body.label).toBe("Tier");
    expect((await call("GET", "/v1/attribute-definitions/attr_01JD3Z7N1B2C3D4E5F6G7H8J9K")).body.code).toBe(
      "ATTRIBUTE_DEFINITION_NOT_FOUND",
    );
  });
});

describe("the console's session (/api/workspace/attribute-definitions)", () => {
  it("lists, makes and archives the definitions of the mode Service-Mode chooses", async () => {
    const email = uniqueEmail("definitions");
    await registerAndVerify(service(), email);
    const session = await signIn(service(), email);
    const send = async (method: string, path: string, mode: "live" | "test", body?: unknown) => {
      const answer = await service().fetch(path, {
        method,
        headers: {
          cookie: session.cookie,
          "x-csrf-token": session.csrf,
          "service-mode": mode,
          "content-type": "application/json",
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
    };
    const made = await send("POST", "/api/workspace/attribute-definitions", "test", {
      object_type: "ticket",
      key: "sla",
      label: "SLA",
      type: "enum",
      options: ["gold", "silver"],
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ livemode: false, key: "sla" });
    expect((await send("GET", "/api/workspace/attribute-definitions", "live")).body.data).toEqual([]);
    expect((await send("GET", "/api/workspace/attribute-definitions", "test")).body.data).toMatchObject([
      { id: made.body.id },
    ]);
    // The test key obeys it; a live key does not know it.
    const keyIn = async (mode: "live" | "test") =>
      (
        await createApiKey(service().service.db.pool, {
          workspaceId: session.workspaceId,
          name: mode,
          scopes: ["tickets:write"],
          mode,
        })
      ).key;
    const ticket = (key: string) =>
      service().fetch("/v1/tickets", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ subject: "s", custom_attributes: { sla: "bronze" } }),
      });
    expect((await ticket(await keyIn("test"))).status).toBe(400);
    expect((await ticket(await keyIn("live"))).status).toBe(201);
    const archived = await send("POST", `/api/workspace/attribute-definitions/${made.body.id}/archive`, "test");
    expect(archived.body.archived_at).toEqual(expect.any(String));
    expect((await ticket(await keyIn("test"))).status).toBe(201);
  });
});

describe("a definition made while a write waits for it", () => {
  it("checks the write against it: the write read the definitions after the definition's commit", async () => {
    const { key, workspaceId } = await workspaceWithKey(service(), ALL_SCOPES);
    const pool = service().service.db.pool;
    const definer = await pool.connect();
    try {
      // A definition's change holds the kind's lock exclusively, as lockDefinitionsOf does.
      await definer.query("BEGIN");
      await definer.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`attributes:${workspaceId}:lead`]);
      const pending = service().fetch("/v1/leads", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Waits" }),
      });
      // The write is waiting for this very lock (a bigint key is pg_locks' classid and objid, high and low halves).
      const waiting = async () =>
        (
          await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks l, (SELECT hashtextextended($1, 0) AS k) key
              WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objsubid = 1
                AND ((l.classid::bigint << 32) | l.objid::bigint) = key.k`,
            [`attributes:${workspaceId}:lead`],
          )
        ).rows[0]?.n ?? 0;
      await expect.poll(waiting).toBeGreaterThan(0);
      await definer.query(
        `INSERT INTO attribute_definitions (id, workspace_id, object_type, key, label, type, required)
         VALUES ($1, $2, 'lead', 'tier', 'Tier', 'string', true)`,
        [newId("attributeDefinition"), workspaceId],
      );
      await definer.query("COMMIT");
      const answer = await pending;
      const text = await answer.text();
      expect(answer.status, text).toBe(400);
      expect(text).toContain("body.custom_attributes.tier");
    } finally {
      definer.release();
    }
  });
});
