/**
 * Recording an event on a real PostgreSQL: its outbox row in the transaction of the change (so that it commits or
 * rolls back with it), then the sequencer's pass (events/sequencer.ts) that numbers it and writes its fan-out
 * (webhooks/fan-out.ts): one delivery per enabled subscription to its type, and the pg-boss job of each delivery's
 * first attempt.
 */
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { migrate } from "../../server/src/db/migrate.ts";
import { withTransaction } from "../../server/src/db/transaction.ts";
import { type Event, getEvent, recordEvent } from "../../server/src/domain/events/events.service.ts";
import { runPass } from "../../server/src/domain/events/sequencer.ts";
import { idempotentWrite } from "../../server/src/domain/idempotency/idempotency.ts";
import { DELIVERY_QUEUE, type DeliveryJob, deliveryJobId } from "../../server/src/domain/webhooks/delivery-jobs.ts";
import { deliveryFanOut } from "../../server/src/domain/webhooks/fan-out.ts";
import { createWebhook } from "../../server/src/domain/webhooks/webhooks.service.ts";
import { idPattern } from "../../server/src/lib/ids.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { startTestQueue } from "../helpers/queue.ts";

let database: TestDatabase;
let pool: pg.Pool;
let boss: PgBoss;
let workspaceId: string;
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

/** One pass of the sequencer, as every process runs after its writes. */
const sequence = () => runPass(pool, deliveryFanOut(boss));

const jobs = async () => (await boss.findJobs<DeliveryJob>(DELIVERY_QUEUE)).map((job) => job.data);

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on("error", () => undefined);
  await migrate(pool);
  boss = await startTestQueue(database.url);
});
afterAll(async () => {
  await boss?.stop({ graceful: false });
  await pool?.end();
  await database?.drop();
});
beforeEach(async () => {
  workspaceId = (await createWorkspace(pool, { name: "Record", ownerEmail: `record-${Date.now()}@example.com` }))
    .workspace_id;
  await boss.deleteAllJobs(DELIVERY_QUEUE);
});

describe("recordEvent, then the sequencer's pass", () => {
  it("writes the event, one delivery per enabled subscription to its type, and each one's first job", async () => {
    const first = await subscribe(["lead.captured"]);
    const second = await subscribe(["lead.captured", "ticket.updated"]);
    await subscribe(["ticket.updated"]);
    await subscribe(["lead.captured"], false);

    const { result: eventId, queries } = await countQueries(() =>
      withTransaction(pool, (db) => recordEvent(db, workspaceId, "lead.captured", DATA)),
    );
    // BEGIN, the outbox row, COMMIT: the change's transaction does no fan-out.
    expect(queries).toHaveLength(3);
    expect(queries[1]).toMatch(/INSERT INTO event_outbox/);
    expect(await jobs()).toEqual([]);
    expect(await sequence()).toBe(1);

    const event: Event = await getEvent(pool, workspaceId, eventId);
    expect(event).toMatchObject({ id: eventId, type: "lead.captured", data: DATA, workspace_id: workspaceId });
    expect(event.sequence).toBe(1);
    expect(Date.parse(event.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    const { deliveries } = await rows();
    expect(deliveries.map((delivery) => delivery.webhook_id)).toEqual([first, second].sort());
    for (const delivery of deliveries) {
      expect(delivery.id).toMatch(idPattern("delivery"));
      expect(delivery.id.slice(4, 14), "the event's time part").toBe(eventId.slice(4, 14));
      expect(delivery.event_id).toBe(eventId);
      // The body sent is the envelope that /v1/events shows, byte for byte as JSON.stringify writes it.
      expect(delivery.payload).toBe(JSON.stringify(event));
      expect(await boss.getJobById(DELIVERY_QUEUE, deliveryJobId(delivery.id, 1))).toMatchObject({
        state: "created",
        data: { delivery_id: delivery.id, attempt: 1 },
      });
    }
    expect(await jobs()).toHaveLength(2);
  });

  it("leaves no event, delivery or job when the transaction rolls back after recording", async () => {
    await subscribe(["conversation.created"]);
    await expect(
      withTransaction(pool, async (db) => {
        await recordEvent(db, workspaceId, "conversation.created", DATA);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await sequence()).toBe(0);
    expect(await rows()).toEqual({ events: [], deliveries: [] });
    expect(await jobs()).toEqual([]);
  });

  it("costs one statement, and its pass enqueues nothing, when no one subscribes", async () => {
    const { result: eventId, queries } = await countQueries(() =>
      withTransaction(pool, (db) => recordEvent(db, workspaceId, "ticket.updated", DATA)),
    );
    expect(queries).toHaveLength(3);
    await sequence();
    expect((await rows()).events.map((row) => row.id)).toEqual([eventId]);
    expect((await rows()).deliveries).toEqual([]);
    expect(await jobs()).toEqual([]);
  });

  it("fans out to 100 subscriptions with 100 distinct delivery ids and 100 jobs", async () => {
    // Past the API's 20 a workspace, as an operator's migration or a later limit might leave them.
    const template = await subscribe(["ticket.updated"]);
    await pool.query(
      `INSERT INTO webhooks (id, workspace_id, url, events, secret)
       SELECT 'wh_' || lpad(upper(to_hex(n)), 26, '0'), workspace_id, url, events, secret
         FROM webhooks, generate_series(1, 99) AS n WHERE id = $1`,
      [template],
    );
    await withTransaction(pool, (db) => recordEvent(db, workspaceId, "ticket.updated", DATA));
    await sequence();
    const { deliveries } = await rows();
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(100);
    expect(new Set((await jobs()).map((job) => job.delivery_id))).toEqual(new Set(deliveries.map((d) => d.id)));
  });

  it("commits with an idempotent write's key, and enqueues nothing more for a replay", async () => {
    await subscribe(["lead.captured"]);
    const context = { workspaceId, inFlightWaitMs: 1_000, key: "record-1", method: "POST", path: "/v1/x", body: {} };
    const effect = async (db: pg.PoolClient) => ({
      status: 201,
      body: { event: await recordEvent(db, workspaceId, "lead.captured", DATA) },
    });
    const { queries } = await countQueries(() => idempotentWrite(pool, context, effect));
    expect(queries.at(-1)).toMatch(/SELECT save_idempotent_answer\([\s\S]*COMMIT$/);
    const replay = await idempotentWrite(pool, context, effect);
    expect(replay.replayed).toBe(true);
    await sequence();
    const { events, deliveries } = await rows();
    expect(events.map((row) => row.id)).toEqual([(replay.answer.body as { event: string }).event]);
    expect(deliveries).toHaveLength(1);
    expect(await jobs()).toHaveLength(1);
  });
});
