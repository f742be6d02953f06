/**
 * The deliveries table as the work queue (deliveries.store.ts), on a real PostgreSQL: what is due, who gets it, what a
 * run-out lease brings back, and the subscription health that an attempt's outcome writes.
 */
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { migrate } from "../../server/src/db/migrate.ts";
import { toEvent } from "../../server/src/domain/events/events.service.ts";
import type { Outcome } from "../../server/src/domain/webhooks/deliver.ts";
import { sendEvent } from "../../server/src/domain/webhooks/deliveries.service.ts";
import { abandon, claimDue, recordOutcomes } from "../../server/src/domain/webhooks/deliveries.store.ts";
import { sampleObject } from "../../server/src/domain/webhooks/samples.ts";
import { createWebhook } from "../../server/src/domain/webhooks/webhooks.service.ts";
import { newId } from "../../server/src/lib/ids.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let pool: pg.Pool;
let workspaceId: string;
let webhookId: string;

const lease = { limit: 50, leaseSeconds: 30 };

async function newDelivery(): Promise<string> {
  const event = toEvent({
    id: newId("event"),
    workspace_id: workspaceId,
    type: "lead.captured",
    data: sampleObject("lead.captured"),
    created_at: new Date(),
  });
  const [id] = await sendEvent(pool, event, [webhookId]);
  if (!id) throw new Error("no delivery made");
  return id;
}

function outcome(deliveryId: string, next: Outcome["next"], health: Outcome["health"]): Outcome {
  return {
    deliveryId,
    webhookId,
    attempt: { number: 1, startedAt: new Date(), durationMs: 12, status: 500, body: "", error: null },
    next,
    health,
  };
}

const delivery = async (id: string) =>
  (await pool.query("SELECT status, attempt_count, next_attempt_at, leased_until FROM deliveries WHERE id = $1", [id]))
    .rows[0];
const webhook = async () =>
  (await pool.query("SELECT enabled, disabled_reason, failing_since FROM webhooks WHERE id = $1", [webhookId])).rows[0];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // Dropping the test database ends its connections: an idle client's error then is expected, not a failure.
  pool.on("error", () => undefined);
  await migrate(pool);
  ({ workspace_id: workspaceId } = await createWorkspace(pool, { name: "Queue", ownerEmail: "queue@example.com" }));
  ({ id: webhookId } = await createWebhook(
    pool,
    workspaceId,
    { url: "https://hooks.example.com/q", events: ["lead.captured"] },
    { allowPrivateNetworks: true },
  ));
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

beforeEach(async () => {
  await pool.query("DELETE FROM deliveries");
  await pool.query("UPDATE webhooks SET enabled = true, disabled_reason = NULL, failing_since = NULL");
});

describe("the deliveries table as the queue", () => {
  it("hands a new delivery to one claim only, with what its attempt needs", async () => {
    const id = await newDelivery();
    const [first, second] = await Promise.all([claimDue(pool, lease), claimDue(pool, lease)]);
    const claimed = [...(first ?? []), ...(second ?? [])];
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ id, webhook_id: webhookId, attempt_count: 0, enabled: true });
    expect(claimed[0]?.secret).toMatch(/^whsec_/);
    expect(await claimDue(pool, lease)).toEqual([]);
  });

  it("gives a delivery whose lease ran out (its worker died mid-attempt) to the next claim", async () => {
    const id = await newDelivery();
    expect(await claimDue(pool, { limit: 50, leaseSeconds: 0.2 })).toHaveLength(1);
    expect(await claimDue(pool, lease)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await claimDue(pool, lease)).map((due) => due.id)).toEqual([id]);
  });

  it("ends the lease with the outcome; a retry is due at its time, not before", async () => {
    const id = await newDelivery();
    await claimDue(pool, lease);
    await recordOutcomes(pool, [outcome(id, { status: "pending", delaySeconds: 0.3 }, "failing")]);
    expect(await delivery(id)).toMatchObject({ status: "pending", attempt_count: 1, leased_until: null });
    expect(await claimDue(pool, lease)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await claimDue(pool, lease)).map((due) => due.attempt_count)).toEqual([1]);
  });

  it("never hands out a settled delivery", async () => {
    const succeeded = await newDelivery();
    const abandoned = await newDelivery();
    await claimDue(pool, lease);
    await recordOutcomes(pool, [outcome(succeeded, { status: "succeeded" }, "healthy")]);
    await abandon(pool, abandoned);
    expect(await delivery(succeeded)).toMatchObject({ status: "succeeded", next_attempt_at: null, leased_until: null });
    expect(await delivery(abandoned)).toMatchObject({ status: "failed", next_attempt_at: null, leased_until: null });
    await pool.query("UPDATE deliveries SET leased_until = now() - interval '1 second'");
    expect(await claimDue(pool, lease)).toEqual([]);
  });
});

describe("outcomes written together (recordOutcomes, one statement)", () => {
  it("writes each outcome's attempt and next state, and skips one whose delivery is gone", async () => {
    const [done, retried, gone] = [await newDelivery(), await newDelivery(), await newDelivery()];
    await claimDue(pool, lease);
    // Its subscription deleted during the attempt: the delivery went with it (ON DELETE CASCADE).
    await pool.query("DELETE FROM deliveries WHERE id = $1", [gone]);
    const written = await recordOutcomes(pool, [
      outcome(done, { status: "succeeded" }, "healthy"),
      outcome(retried, { status: "pending", delaySeconds: 60 }, "failing"),
      outcome(gone, { status: "succeeded" }, "healthy"),
    ]);
    expect(written).toBe(2);
    expect(await delivery(done)).toMatchObject({ status: "succeeded", attempt_count: 1, next_attempt_at: null });
    const next = await delivery(retried);
    expect(next).toMatchObject({ status: "pending", attempt_count: 1, leased_until: null });
    expect(next.next_attempt_at.getTime() - Date.now()).toBeGreaterThan(55_000);
    const { rows } = await pool.query(
      "SELECT delivery_id, attempt, duration_ms, response_status FROM delivery_attempts ORDER BY delivery_id",
    );
    expect(rows).toEqual(
      [done, retried].sort().map((id) => ({ delivery_id: id, attempt: 1, duration_ms: 12, response_status: 500 })),
    );
    expect((await webhook()).failing_since).toBeInstanceOf(Date);
  });

  it("writes nothing of a batch that fails", async () => {
    const [first, second] = [await newDelivery(), await newDelivery()];
    await claimDue(pool, lease);
    const bad = { ...outcome(second, { status: "succeeded" }, "healthy"), health: "unknown" as Outcome["health"] };
    await expect(recordOutcomes(pool, [outcome(first, { status: "succeeded" }, "healthy"), bad])).rejects.toThrow();
    expect(await delivery(first)).toMatchObject({ status: "pending" });
    expect((await pool.query("SELECT count(*)::int AS n FROM delivery_attempts")).rows[0].n).toBe(0);
  });
});

describe("the subscription's health after an attempt", () => {
  const record = async (health: Outcome["health"]) => {
    const id = await newDelivery();
    await recordOutcomes(pool, [outcome(id, { status: "failed" }, health)]);
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
