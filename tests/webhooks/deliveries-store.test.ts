/**
 * The deliveries log (deliveries.store.ts) and the pg-boss jobs of its attempts (delivery-jobs.ts), on a real
 * PostgreSQL: what a new delivery enqueues, what an attempt reads, and what its outcome writes, the subscription's
 * health included.
 */
import pg from "pg";
import type { PgBoss } from "pg-boss";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { migrate } from "../../server/src/db/migrate.ts";
import { withTransaction } from "../../server/src/db/transaction.ts";
import { toEvent } from "../../server/src/domain/events/events.service.ts";
import type { Outcome } from "../../server/src/domain/webhooks/deliver.ts";
import { sendEvent } from "../../server/src/domain/webhooks/deliveries.service.ts";
import { abandon, findTargets, saveOutcomes } from "../../server/src/domain/webhooks/deliveries.store.ts";
import { DELIVERY_QUEUE, type DeliveryJob, deliveryJobId } from "../../server/src/domain/webhooks/delivery-jobs.ts";
import { sampleObject } from "../../server/src/domain/webhooks/samples.ts";
import { admitStarts } from "../../server/src/domain/webhooks/throttle.ts";
import { createWebhook } from "../../server/src/domain/webhooks/webhooks.service.ts";
import { newId } from "../../server/src/lib/ids.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { startTestQueue } from "../helpers/queue.ts";

const NO_TRACE = { traceparent: null, tracestate: null };

let database: TestDatabase;
let pool: pg.Pool;
let workspaceId: string;
let webhookId: string;
let boss: PgBoss;

const event = () =>
  toEvent({
    id: newId("event"),
    workspace_id: workspaceId,
    type: "lead.captured",
    data: sampleObject("lead.captured", true),
    created_at: new Date(),
    sequence: 1,
  });

async function newDelivery(): Promise<string> {
  const [id] = await sendEvent(boss, pool, event(), [webhookId], NO_TRACE);
  if (!id) throw new Error("no delivery made");
  return id;
}

function outcome(deliveryId: string, next: Outcome["next"], health: Outcome["health"]): Outcome {
  return {
    deliveryId,
    webhookId,
    attempt: {
      number: 1,
      startedAt: new Date(),
      durationMs: 12,
      status: 500,
      body: "",
      error: null,
      requestHeaders: {},
    },
    next,
    health,
  };
}

const delivery = async (id: string) =>
  (await pool.query("SELECT status, attempt_count, next_attempt_at FROM deliveries WHERE id = $1", [id])).rows[0];
const webhook = async () =>
  (await pool.query("SELECT enabled, disabled_reason, failing_since FROM webhooks WHERE id = $1", [webhookId])).rows[0];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // Dropping the test database ends its connections: an idle client's error then is expected, not a failure.
  pool.on("error", () => undefined);
  await migrate(pool);
  boss = await startTestQueue(database.url);
  ({ workspace_id: workspaceId } = await createWorkspace(pool, { name: "Queue", ownerEmail: "queue@example.com" }));
  ({ id: webhookId } = await createWebhook(
    pool,
    workspaceId,
    { url: "https://hooks.example.com/q", events: ["lead.captured"] },
    { allowPrivateNetworks: true },
  ));
});

afterAll(async () => {
  await boss?.stop({ graceful: false });
  await pool?.end();
  await database?.drop();
});

beforeEach(async () => {
  await pool.query("DELETE FROM deliveries");
  await boss.deleteAllJobs(DELIVERY_QUEUE);
  await pool.query("UPDATE webhooks SET enabled = true, disabled_reason = NULL, failing_since = NULL");
});

describe("the deliveries log and the jobs of its attempts", () => {
  it("enqueues a new delivery's first attempt as a pg-boss job, due at once, in the same transaction", async () => {
    const id = await newDelivery();
    const job = await boss.getJobById<DeliveryJob>(DELIVERY_QUEUE, deliveryJobId(id, 1));
    expect(job).toMatchObject({ state: "created", data: { delivery_id: id, attempt: 1 } });
    expect(Math.abs((job?.startAfter.getTime() ?? 0) - Date.now())).toBeLessThan(5_000);
    await expect(
      withTransaction(pool, async (client) => {
        await sendEvent(boss, client, event(), [webhookId], NO_TRACE);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await boss.findJobs(DELIVERY_QUEUE)).toHaveLength(1);
    expect((await pool.query("SELECT count(*)::int AS n FROM deliveries")).rows[0].n).toBe(1);
  });

  it("derives one job id per delivery and attempt, as a UUID", () => {
    const id = deliveryJobId("dlv_01JD0000000000000000000000", 1);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryJobId("dlv_01JD0000000000000000000000", 1)).toBe(id);
    expect(deliveryJobId("dlv_01JD0000000000000000000000", 2)).not.toBe(id);
    expect(deliveryJobId("dlv_01JD0000000000000000000001", 1)).not.toBe(id);
  });

  it("finds what an attempt needs, and nothing of a delivery that is gone", async () => {
    const [kept, gone] = [await newDelivery(), await newDelivery()];
    await pool.query("DELETE FROM deliveries WHERE id = $1", [gone]);
    const targets = await findTargets(pool, [kept, gone]);
    expect([...targets.keys()]).toEqual([kept]);
    expect(targets.get(kept)).toMatchObject({
      id: kept,
      webhook_id: webhookId,
      status: "pending",
      attempt_count: 0,
      url: "https://hooks.example.com/q",
      enabled: true,
    });
  });

  it("fails a pending delivery whose subscription was disabled, and leaves a settled one as it is", async () => {
    const [pending, settled] = [await newDelivery(), await newDelivery()];
    await saveOutcomes(pool, [outcome(settled, { status: "succeeded" }, "healthy")]);
    await abandon(pool, pending);
    await abandon(pool, settled);
    expect(await delivery(pending)).toMatchObject({ status: "failed", next_attempt_at: null });
    expect(await delivery(settled)).toMatchObject({ status: "succeeded", attempt_count: 1 });
  });
});

describe("outcomes written together (saveOutcomes, one statement)", () => {
  it("writes each outcome's attempt and next state, and skips one whose delivery is gone", async () => {
    const [done, retried, gone] = [await newDelivery(), await newDelivery(), await newDelivery()];
    // Its subscription deleted during the attempt: the delivery went with it (ON DELETE CASCADE).
    await pool.query("DELETE FROM deliveries WHERE id = $1", [gone]);
    const written = await saveOutcomes(pool, [
      outcome(done, { status: "succeeded" }, "healthy"),
      outcome(retried, { status: "pending", delaySeconds: 60 }, "failing"),
      outcome(gone, { status: "succeeded" }, "healthy"),
    ]);
    expect(written).toBe(2);
    expect(await delivery(done)).toMatchObject({ status: "succeeded", attempt_count: 1, next_attempt_at: null });
    const next = await delivery(retried);
    expect(next).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(next.next_attempt_at.getTime() - Date.now()).toBeGreaterThan(55_000);
    const { rows } = await pool.query(
      "SELECT delivery_id, attempt, duration_ms, response_status FROM delivery_attempts ORDER BY delivery_id",
    );
    expect(rows).toEqual(
      [done, retried].sort().map((id) => ({ delivery_id: id, attempt: 1, duration_ms: 12, response_status: 500 })),
    );
    expect((await webhook()).failing_since).toBeInstanceOf(Date);
  });

  it("skips a late outcome: one for an attempt the log already has, or for a settled delivery", async () => {
    const [retried, done] = [await newDelivery(), await newDelivery()];
    await saveOutcomes(pool, [
      outcome(retried, { status: "pending", delaySeconds: 60 }, "failing"),
      outcome(done, { status: "succeeded" }, "healthy"),
    ]);
    // A worker that lost its job's claim, arriving with attempt 1 again: neither undoes what the log holds.
    const late = await saveOutcomes(pool, [
      outcome(retried, { status: "succeeded" }, "healthy"),
      outcome(done, { status: "pending", delaySeconds: 5 }, "failing"),
    ]);
    expect(late).toBe(0);
    expect(await delivery(retried)).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(await delivery(done)).toMatchObject({ status: "succeeded", attempt_count: 1, next_attempt_at: null });
  });

  it("writes nothing of a batch that fails", async () => {
    const [first, second] = [await newDelivery(), await newDelivery()];
    const bad = { ...outcome(second, { status: "succeeded" }, "healthy"), health: "unknown" as Outcome["health"] };
    await expect(saveOutcomes(pool, [outcome(first, { status: "succeeded" }, "healthy"), bad])).rejects.toThrow();
    expect(await delivery(first)).toMatchObject({ status: "pending" });
    expect((await pool.query("SELECT count(*)::int AS n FROM delivery_attempts")).rows[0].n).toBe(0);
  });
});

describe("the subscription's health after an attempt", () => {
  const record = async (health: Outcome["health"]) => {
    const id = await newDelivery();
    await saveOutcomes(pool, [outcome(id, { status: "failed" }, health)]);
  };

  it("starts a failing streak once, and a success ends it", async () => {
    await record("failing");
    const since = (await webhook()).failing_since;
    expect(since).toBeInstanceOf(Date);
    await record("failing");
    expect(await webhook()).toMatchObject({ enabled: true, failing_since: since });
    await record("healthy");
    expect(await webhook()).toMatchObject({ enabled: true, failing_since: null });
  });

  it("disables a subscription failing for more than 5 days", async () => {
    await pool.query("UPDATE webhooks SET failing_since = now() - interval '4 days 23 hours'");
    await record("failing");
    expect(await webhook()).toMatchObject({ enabled: true });
    await pool.query("UPDATE webhooks SET failing_since = now() - interval '5 days 1 minute'");
    await record("failing");
    expect(await webhook()).toMatchObject({ enabled: false, disabled_reason: "failing" });
  });

  it("disables a subscription whose endpoint is gone (410)", async () => {
    await record("gone");
    expect(await webhook()).toMatchObject({ enabled: false, disabled_reason: "endpoint_gone" });
  });
});

describe("the admission of a paced attempt (admit_delivery_starts())", () => {
  it("records the start when it is admitted, after waiting for another admission, not when it began to wait", async () => {
    const holder = await pool.connect();
    try {
      // Another admission holds the subscription's pace row for 300 ms.
      await holder.query("BEGIN");
      await holder.query("SELECT lock_webhook_pacing($1::text[])", [[webhookId]]);
      const waiting = admitStarts(pool, [{ webhookId, perSecond: 1000 }]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { rows } = await holder.query<{ released: Date }>("SELECT clock_timestamp() AS released");
      await holder.query("COMMIT");
      expect(await waiting).toEqual([null]);
      const pace = await pool.query<{ last: Date }>(
        "SELECT recent_starts[array_length(recent_starts, 1)] AS last FROM webhook_pacing WHERE webhook_id = $1",
        [webhookId],
      );
      // Admitted once the row was free: its start is not before the holder let go.
      expect(pace.rows[0]?.last.getTime()).toBeGreaterThanOrEqual((rows[0] as { released: Date }).released.getTime());
    } finally {
      holder.release();
    }
  });
});
