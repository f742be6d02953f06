/**
 * `POST /v1/tickets/batch` as a help-desk sync uses it: tickets created or updated by `external_id`, one result per
 * item in order, an item that fails (a status move that is not allowed, a lead that does not exist, a taken
 * external_id) failing alone and giving its ticket number back, one Idempotency-Key for the batch, and an event for
 * each item that changed something.
 */
import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

interface Item {
  result: "created" | "updated" | "unchanged" | "failed";
  object?: { id: string; number: number; status: string; subject: string; external_id: string | null; version: number };
  problem?: { code: string; status: number; errors?: { path: string }[] };
}

async function setup() {
  const { key, workspaceId } = await workspaceWithKey(service(), ["tickets:write", "tickets:read"]);
  const call = async (method: string, path: string, body?: object, idempotencyKey?: string) => {
    const response = await service().fetch(path, {
      method,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${key}`,
        ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
      },
      ...(body && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      body: JSON.parse(text) as { data: Item[]; code?: string; external_id?: string },
    };
  };
  const batch = (items: object[], idempotencyKey?: string) =>
    call("POST", "/v1/tickets/batch", { match_on: "external_id", items }, idempotencyKey);
  const pool = service().service.db.pool;
  const events = async () =>
    Number(
      (
        await pool.query(
          `SELECT ((SELECT count(*) FROM events WHERE workspace_id = $1)
                 + (SELECT count(*) FROM event_outbox WHERE workspace_id = $1))::int AS n`,
          [workspaceId],
        )
      ).rows[0].n,
    );
  const numbers = async () =>
    (await pool.query("SELECT number FROM tickets WHERE workspace_id = $1 ORDER BY number", [workspaceId])).rows.map(
      (row: { number: number }) => row.number,
    );
  return { call, batch, events, numbers };
}

describe("POST /v1/tickets/batch", () => {
  it("creates, updates and leaves unchanged by external_id, each item alone, numbers without gaps", async () => {
    const { batch, events, numbers } = await setup();
    const first = await batch([
      { external_id: "zd-1", subject: "Export broken" },
      { external_id: "zd-2", subject: "Login loop", status: "closed" },
      { external_id: "zd-3", subject: "Of a lead that is not there", lead_id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7" },
      { subject: "No external id" },
      { external_id: "zd-4", subject: "" },
      { external_id: "zd-5", subject: "Slow search", priority: "high" },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.data.map((item) => item.result)).toEqual([
      "created",
      "created",
      "failed",
      "failed",
      "failed",
      "created",
    ]);
    expect(first.body.data[2]?.problem).toMatchObject({ code: "LEAD_NOT_FOUND", status: 404 });
    expect(first.body.data[3]?.problem?.errors?.[0]?.path).toBe("body.items.3.external_id");
    expect(first.body.data[4]?.problem?.errors?.[0]?.path).toBe("body.items.4.subject");
    // The failed item's number went back to the counter: 1, 2, 3, not 1, 2, 4.
    expect(first.body.data.flatMap((item) => (item.object ? [item.object.number] : []))).toEqual([1, 2, 3]);
    expect(await numbers()).toEqual([1, 2, 3]);
    expect(await events()).toBe(3);

    const second = await batch([
      { external_id: "zd-1", subject: "Export broken", status: "open" },
      { external_id: "zd-2", subject: "Login loop", status: "open" },
      { external_id: "zd-5", subject: "Slow search", priority: "high" },
      { external_id: "zd-6", subject: "New one" },
    ]);
    expect(second.body.data.map((item) => item.result)).toEqual(["updated", "failed", "unchanged", "created"]);
    expect(second.body.data[0]?.object).toMatchObject({ status: "open", version: 2, number: 1 });
    expect(second.body.data[1]?.problem).toMatchObject({ code: "INVALID_STATE_TRANSITION", status: 409 });
    expect(second.body.data[3]?.object?.number).toBe(4);
    expect(await events()).toBe(5);
  });

  it("replays the batch byte for byte under its Idempotency-Key, writing nothing", async () => {
    const { batch, events, numbers } = await setup();
    const items = [
      { external_id: "a", subject: "One" },
      { external_id: "b", subject: "Two" },
    ];
    const first = await batch(items, "tickets-1");
    const before = [await events(), await numbers()];
    const again = await batch(items, "tickets-1");
    expect(again.text).toBe(first.text);
    expect([await events(), await numbers()]).toEqual(before);
  });

  it("keeps external_id unique on a single create and finds a ticket by it", async () => {
    const { call, numbers } = await setup();
    const created = await call("POST", "/v1/tickets", { subject: "Mine", external_id: "ext-1" });
    expect(created.status).toBe(201);
    const taken = await call("POST", "/v1/tickets", { subject: "Also mine", external_id: "ext-1" });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("EXTERNAL_ID_TAKEN");
    expect(await numbers()).toEqual([1]);
    expect(created.body.external_id).toBe("ext-1");
    await call("POST", "/v1/tickets", { subject: "Another" });
    const found = await call("GET", "/v1/tickets?external_id=ext-1");
    expect(found.body.data).toEqual([created.body]);
  });

  it("loads any number through the SDK, 100 a call, in order, telling its progress", async () => {
    const client = await clientFor(service(), ["tickets:write", "tickets:read"]);
    const rows = Array.from({ length: 150 }, (_, i) => ({ external_id: `sync-${i}`, subject: `Ticket ${i}` }));
    const progress: number[] = [];
    const results = await client.tickets.upsert(rows, { onProgress: ({ done }) => progress.push(done) });
    expect(progress).toEqual([100, 150]);
    expect(results.map((item) => item.object?.number)).toEqual(rows.map((_, i) => i + 1));
    const found = ok(await client.GET("/v1/tickets", { params: { query: { external_id: "sync-7" } } }));
    expect(found.data.map((ticket) => ticket.subject)).toEqual(["Ticket 7"]);
  });
});
