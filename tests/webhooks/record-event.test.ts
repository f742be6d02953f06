/**
 * Recording an event (webhooks/record.ts) on a real PostgreSQL: its row, one delivery per enabled subscription to its
 * type and the workers' wake-up, written with the transaction's COMMIT (db/deferred.ts), so that they commit or roll
 * back with the change and cost the write no round trip of their own.
 */
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { migrate } from "../../server/src/db/migrate.ts";
import { withTransaction } from "../../server/src/db/transaction.ts";
import { type Event, getEvent } from "../../server/src/domain/events/events.service.ts";
import { idempotentWrite } from "../../server/src/domain/idempotency/idempotency.ts";
import { recordEvent } from "../../server/src/domain/webhooks/record.ts";
import { createWebhook } from "../../server/src/domain/webhooks/webhooks.service.ts";
import { idPattern } from "../../server/src/lib/ids.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let pool: pg.Pool;
let listener: pg.Client;
let workspaceId: string;
let notified = 0;
const URLS = { allowPrivateNetworks: true };
const DATA = { object: { id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7", name: 'O\'Brien \\ "quoted" $$ 😀 \n' } };

type EventType = Event["type"];
const subscribe = async (events: EventType[], enabled = true) =>
  (await createWebhook(pool, workspaceId, { url: "https://hooks.example.com/r", events, enabled }, URLS)).id;

const rows = async () => ({
  events: (await pool.query("SELECT id, created_at FROM events WHERE workspace_id = $1", [workspaceId])).rows,
  deliveries: (
    await pool.query<{ id: string; webhook_id: string; payload: string; event_id: string }>(
      "SELECT id, webhook_id, payload, event_id FROM deliveries WHERE workspace_id = $1 ORDER BY webhook_id",
      [workspaceId],
    )
  ).rows,
});

/** Counts the queries (one round trip each) sent on the pool's clients while `work` runs. */
async function countQueries<T>(work: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const queries: string[] = [];
  const count = (client: pg.PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const [first] = args;
      queries.push(typeof first === "string" ? first : String((first as { text: string }).text));
      return query(...args);
    };
    return () => {
      (client as { query: unknown }).query = query;
    };
  };
  const restores: (() => void)[] = [];
  const onAcquire = (client: pg.PoolClient) => restores.push(count(client));
  pool.on("acquire", onAcquire);
  try {
    return { result: await work(), queries };
  } finally {
    pool.off("acquire", onAcquire);
    for (const restore of restores) restore();
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on("error", () => undefined);
  await migrate(pool);
  listener = new pg.Client({ connectionString: database.url });
  listener.on("error", () => undefined);
  await listener.connect();
  await listener.query("LISTEN webhook_work");
  listener.on("notification", () => notified++);
});
afterAll(async () => {
  await listener?.end().catch(() => undefined);
  await pool?.end();
  await database?.drop();
});
beforeEach(async () => {
  workspaceId = (await createWorkspace(pool, { name: "Record", ownerEmail: `record-${Date.now()}@example.com` }))
    .workspace_id;
  notified = 0;
});

describe("recordEvent", () => {
  it("writes the event and one delivery per enabled subscription to its type, with the COMMIT", async () => {
    const first = await subscribe(["lead.captured"]);
    const second = await subscribe(["lead.captured", "ticket.updated"]);
    await subscribe(["ticket.updated"]);
    await subscribe(["lead.captured"], false);

    const { result: eventId, queries } = await countQueries(() =>
      withTransaction(pool, async (db) => {
        const id = await recordEvent(db, workspaceId, "lead.captured", DATA);
        // Not written yet: it travels with the COMMIT.
        expect((await db.query("SELECT count(*)::int AS n FROM events WHERE id = $1", [id])).rows[0].n).toBe(0);
        return id;
      }),
    );
    expect(queries.map((text) => text.trim().split(/\s+/)[0])).toEqual(["BEGIN", "SELECT", "SELECT"]);
    expect(queries[2]).toMatch(/^SELECT record_event\([\s\S]*\);\nCOMMIT$/);

    const event: Event = await getEvent(pool, workspaceId, eventId);
    expect(event).toMatchObject({ id: eventId, type: "lead.captured", data: DATA, workspace_id: workspaceId });
    expect(Date.parse(event.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    const { deliveries } = await rows();
    expect(deliveries.map((delivery) => delivery.webhook_id)).toEqual([first, second].sort());
    for (const delivery of deliveries) {
      expect(delivery.id).toMatch(idPattern("delivery"));
      expect(delivery.id.slice(4, 14), "the event's time part").toBe(eventId.slice(4, 14));
      expect(delivery.event_id).toBe(eventId);
      // The body sent is the envelope that /v1/events shows, byte for byte as JSON.stringify writes it.
      expect(delivery.payload).toBe(JSON.stringify(event));
    }
    await expect.poll(() => notified).toBe(1);
  });

  it("writes nothing, and wakes no worker, when the transaction rolls back after recording", async () => {
    await subscribe(["conversation.created"]);
    // One connection, so that what follows runs on the client of the failed transaction.
    const single = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      await expect(
        withTransaction(single, async (db) => {
          await recordEvent(db, workspaceId, "conversation.created", DATA);
          throw new Error("the change failed");
        }),
      ).rejects.toThrow("the change failed");
      expect(await rows()).toEqual({ events: [], deliveries: [] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(notified).toBe(0);
      // That client's list was closed with the transaction: used bare, its events are written at once.
      const client = await single.connect();
      try {
        await recordEvent(client, workspaceId, "conversation.created", DATA);
      } finally {
        client.release();
      }
      expect((await rows()).deliveries).toHaveLength(1);
    } finally {
      await single.end();
    }
  });

  it("is written at once, with no wake-up, on a connection without a transaction of ours, when no one subscribes", async () => {
    const eventId = await recordEvent(pool, workspaceId, "ticket.updated", DATA);
    expect((await rows()).events.map((row) => row.id)).toEqual([eventId]);
    expect((await rows()).deliveries).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(notified).toBe(0);
  });

  it("fans out to 100 subscriptions with 100 distinct delivery ids", async () => {
    // Past the API's 20 a workspace, as an operator's migration or a later limit might leave them.
    const template = await subscribe(["ticket.updated"]);
    await pool.query(
      `INSERT INTO webhooks (id, workspace_id, url, events, secret)
       SELECT 'wh_' || lpad(upper(to_hex(n)), 26, '0'), workspace_id, url, events, secret
         FROM webhooks, generate_series(1, 99) AS n WHERE id = $1`,
      [template],
    );
    await withTransaction(pool, (db) => recordEvent(db, workspaceId, "ticket.updated", DATA));
    const { deliveries } = await rows();
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(100);
  });

  it("commits with an idempotent write's key, in the query that records the key, and once for a replay", async () => {
    await subscribe(["lead.captured"]);
    const context = { workspaceId, inFlightWaitMs: 1_000, key: "record-1", method: "POST", path: "/v1/x", body: {} };
    const effect = async (db: pg.PoolClient) => ({
      status: 201,
      body: { event: await recordEvent(db, workspaceId, "lead.captured", DATA) },
    });
    const { queries } = await countQueries(() => idempotentWrite(pool, context, effect));
    expect(queries).toHaveLength(2);
    expect(queries[1]).toMatch(/^SELECT record_event\([\s\S]*SELECT record_idempotency_key\([\s\S]*COMMIT$/);
    const replay = await idempotentWrite(pool, context, effect);
    expect(replay.replayed).toBe(true);
    const { events, deliveries } = await rows();
    expect(events.map((row) => row.id)).toEqual([(replay.answer.body as { event: string }).event]);
    expect(deliveries).toHaveLength(1);
  });
});
