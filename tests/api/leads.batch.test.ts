/**
 * `POST /v1/leads/batch` as a pipeline uses it: items created or updated by `external_id` or e-mail, one result per
 * item in order, one bad item failing alone, one Idempotency-Key for the whole batch (a replay is the same bytes and
 * writes nothing), and an event for each item that changed something.
 */
import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { clientFor } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

interface Item {
  result: "created" | "updated" | "unchanged" | "failed";
  object?: { id: string; version: number; email: string | null; name: string | null; status: string };
  problem?: { code: string; errors?: { path: string; message: string }[]; request_id: string };
}

async function setup() {
  const { key, workspaceId } = await workspaceWithKey(service(), ["leads:write", "leads:read"]);
  const batch = async (body: object, idempotencyKey?: string) => {
    const response = await service().fetch("/v1/leads/batch", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${key}`,
        ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, data: (JSON.parse(text) as { data: Item[] }).data };
  };
  const count = async (sql: string) =>
    ((await service().service.db.pool.query(sql, [workspaceId])).rows[0] as { n: number }).n;
  const leads = () => count("SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1");
  const events = () =>
    count(
      `SELECT ((SELECT count(*) FROM events WHERE workspace_id = $1)
             + (SELECT count(*) FROM event_outbox WHERE workspace_id = $1))::int AS n`,
    );
  return { batch, leads, events, workspaceId };
}

describe("POST /v1/leads/batch", () => {
  it("loads 2,000 leads in 20 calls with 1 % invalid, replays them byte for byte, and finds them unchanged", async () => {
    const { batch, leads, events } = await setup();
    const calls = Array.from({ length: 20 }, (_, call) =>
      Array.from({ length: 100 }, (_, i) => {
        const n = call * 100 + i;
        // Every hundredth item is not a LeadCreate: an e-mail that is not one.
        return i === 37
          ? { external_id: `crm-${n}`, email: "not an address" }
          : { external_id: `crm-${n}`, name: `Lead ${n}`, email: `lead${n}@example.com` };
      }),
    );
    const first: string[] = [];
    for (const [call, items] of calls.entries()) {
      const answer = await batch({ match_on: "external_id", items }, `load-${call}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.data).toHaveLength(100);
      expect(answer.data.filter((item) => item.result === "created")).toHaveLength(99);
      const failed = answer.data[37];
      expect(failed?.result).toBe("failed");
      expect(failed?.object).toBeUndefined();
      expect(failed?.problem?.code).toBe("VALIDATION_FAILED");
      expect(failed?.problem?.errors?.map((error) => error.path)).toEqual(["body.items.37.email"]);
      first.push(answer.text);
    }
    expect(await leads()).toBe(1_980);
    expect(await events()).toBe(1_980);

    for (const [call, items] of calls.entries()) {
      const again = await batch({ match_on: "external_id", items }, `load-${call}`);
      expect(again.text).toBe(first[call]);
    }
    expect(await leads()).toBe(1_980);

    const fresh = await batch({ match_on: "external_id", items: calls[3] }, "load-again-3");
    expect(fresh.data.filter((item) => item.result === "unchanged")).toHaveLength(99);
    expect(fresh.data[37]?.result).toBe("failed");
    expect(fresh.data[0]?.object).toEqual(JSON.parse(first[3] as string).data[0].object);
    expect(await events()).toBe(1_980);
  });

  it("updates only the fields an item gives, matched by external_id or e-mail in any case, with an event each", async () => {
    const { batch, events } = await setup();
    const made = await batch({
      match_on: "external_id",
      items: [
        { external_id: "a", name: "Ada", email: "ada@example.com", status: "contacted" },
        { external_id: "b", name: "Bob" },
      ],
    });
    expect(made.data.map((item) => item.result)).toEqual(["created", "created"]);
    const before = await events();
    const updated = await batch({
      match_on: "email",
      items: [
        { email: "ADA@example.com", company: "Engines" },
        { email: "new@example.com", name: "New" },
        { name: "no e-mail" },
      ],
    });
    expect(updated.data.map((item) => item.result)).toEqual(["updated", "created", "failed"]);
    expect(updated.data[0]?.object).toMatchObject({
      id: made.data[0]?.object?.id,
      name: "Ada",
      status: "contacted",
      version: 2,
    });
    expect(updated.data[2]?.problem?.errors).toEqual([
      { path: "body.items.2.email", message: "is required to match on email" },
    ]);
    expect(await events()).toBe(before + 2);
  });

  it("fails an item alone when its write fails, keeping the others and none of its events", async () => {
    const { batch, leads, events } = await setup();
    await batch({ match_on: "external_id", items: [{ external_id: "taken", name: "First" }] });
    const [leadsBefore, eventsBefore] = [await leads(), await events()];
    const answer = await batch({
      match_on: "email",
      items: [
        { email: "one@example.com", name: "One" },
        { email: "two@example.com", external_id: "taken" },
        { email: "three@example.com", name: "Three" },
      ],
    });
    expect(answer.data.map((item) => item.result)).toEqual(["created", "failed", "created"]);
    expect(answer.data[1]?.problem).toMatchObject({ code: "EXTERNAL_ID_TAKEN", status: 409 });
    expect(answer.data[1]?.problem?.request_id).toMatch(/^req_/);
    expect(await leads()).toBe(leadsBefore + 2);
    expect(await events()).toBe(eventsBefore + 2);
  });

  it("records the events of creates and updates in item order, and fails a second create of one external_id", async () => {
    const { batch, workspaceId } = await setup();
    await batch({ match_on: "external_id", items: [{ external_id: "old", name: "Old" }] });
    const answer = await batch({
      match_on: "email",
      items: [
        { email: "a@example.com", external_id: "dup" },
        { email: "b@example.com", external_id: "dup" },
        { email: "c@example.com" },
      ],
    });
    expect(answer.data.map((item) => item.result)).toEqual(["created", "failed", "created"]);
    expect(answer.data[1]?.problem).toMatchObject({ code: "EXTERNAL_ID_TAKEN" });
    const pool = service().service.db.pool;
    const last = async () =>
      Number(
        (await pool.query("SELECT coalesce(max(sequence), 0) AS n FROM events WHERE workspace_id = $1", [workspaceId]))
          .rows[0].n,
      );
    const before = await last();
    const mixed = await batch({
      match_on: "external_id",
      items: [
        { external_id: "n1", name: "New one" },
        { external_id: "old", name: "Renamed" },
        { external_id: "n2", name: "New two" },
      ],
    });
    expect(mixed.data.map((item) => item.result)).toEqual(["created", "updated", "created"]);
    // The write answers once its events are numbered (the sequencer's settle).
    const { rows } = await pool.query(
      `SELECT type, data->'object'->>'id' AS id FROM events
        WHERE workspace_id = $1 AND data->'object'->>'id' = ANY($2) AND sequence > $3 ORDER BY sequence`,
      [workspaceId, mixed.data.map((item) => item.object?.id), before],
    );
    expect(rows).toEqual([
      { type: "lead.captured", id: mixed.data[0]?.object?.id },
      { type: "lead.updated", id: mixed.data[1]?.object?.id },
      { type: "lead.captured", id: mixed.data[2]?.object?.id },
    ]);
  });

  it("fails alone an item that PostgreSQL cannot store, as a single create would be refused", async () => {
    const { batch, leads } = await setup();
    const before = await leads();
    const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
    const answer = await batch({
      match_on: "external_id",
      items: [
        { external_id: "ok-1", name: "Fine" },
        { external_id: "nul", name: "Nul\u0000byte" },
        { external_id: "deep", custom_attributes: { plan: deep } },
        { external_id: "ok-2", name: "Also fine" },
      ],
    });
    expect(answer.status).toBe(200);
    expect(answer.data.map((item) => item.result)).toEqual(["created", "failed", "failed", "created"]);
    expect(answer.data[1]?.problem?.errors?.[0]?.path).toBe("body.items.1.name");
    expect(answer.data[2]?.problem?.errors?.[0]?.path).toMatch(/^body\.items\.2\.custom_attributes\.plan/);
    expect(await leads()).toBe(before + 2);
    // Outside the items, the request is still refused as a whole.
    const refused = await batch({ match_on: "external_id\u0000", items: [{ external_id: "x" }] });
    expect(refused.status).toBe(400);
  });

  it("refuses to guess when an e-mail matches two leads", async () => {
    const { batch } = await setup();
    await batch({
      match_on: "external_id",
      items: [
        { external_id: "x1", email: "twin@example.com" },
        { external_id: "x2", email: "Twin@example.com" },
      ],
    });
    const answer = await batch({ match_on: "email", items: [{ email: "twin@example.com", name: "Which?" }] });
    expect(answer.data[0]).toMatchObject({ result: "failed", problem: { code: "LEAD_MATCH_AMBIGUOUS" } });
  });

  it("loads any number through the SDK, 100 a call, in order, telling its progress", async () => {
    const client = await clientFor(service(), ["leads:write"]);
    const rows = Array.from({ length: 250 }, (_, i) => ({ external_id: `sdk-${i}`, name: `Row ${i}` }));
    const progress: number[] = [];
    const results = await client.leads.upsert(rows, {
      matchOn: "external_id",
      onProgress: ({ done, total }) => progress.push(done / total),
    });
    expect(progress).toEqual([0.4, 0.8, 1]);
    expect(results.map((item) => item.object?.name)).toEqual(rows.map((row) => row.name));
    const again = await client.leads.upsert(rows.slice(0, 3), { matchOn: "external_id" });
    expect(again.map((item) => item.result)).toEqual(["unchanged", "unchanged", "unchanged"]);
  });

  it("refuses a batch of more than 100 items, or none, as a whole", async () => {
    const { batch } = await setup();
    const many = Array.from({ length: 101 }, (_, i) => ({ external_id: `m${i}` }));
    expect((await batch({ match_on: "external_id", items: many })).status).toBe(400);
    expect((await batch({ match_on: "external_id", items: [] })).status).toBe(400);
  });
});
