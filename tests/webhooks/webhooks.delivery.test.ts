/**
 * End to end: the SDK subscribes to a local HTTPS receiver, changes data, and the receiver gets signed deliveries
 * that the published verifier and the standardwebhooks library both accept. The service runs as its own process
 * (NODE_EXTRA_CA_CERTS must be set at start), with the retry schedule compressed through configuration.
 */
import type { ServiceClient } from "@service/sdk";
import type pg from "pg";
import { PgBoss } from "pg-boss";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_QUEUE, deliveryJobId } from "../../server/src/domain/webhooks/delivery-jobs.ts";
import { QUEUE_SCHEMA } from "../../server/src/jobs/queue.ts";
import * as verifier from "../../webhook-verifier/src/node.ts";
import type { Receiver } from "../helpers/receiver.ts";
import { ok } from "../helpers/sdk.ts";
import { startWebhookService, type WebhookService } from "../helpers/webhook-service.ts";

let service: WebhookService;
let receiver: Receiver;
let pool: pg.Pool;
const newClient = () => service.newClient();

/** The retry schedule here, in seconds; each delay is drawn within ±20 % of its entry (schedule.ts). */
const SCHEDULE = [0.3, 1, 3];
const JITTER = 0.2;
/** How long a test waits for the worker to record or act: generous, since a loaded machine is slow to do either. */
const WAIT_MS = 15_000;

beforeAll(async () => {
  service = await startWebhookService({ WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(",") });
  ({ receiver, pool } = service);
});

afterAll(async () => {
  await service?.stop();
});

/** `read()` again every 50 ms until `done` holds of its value, or WAIT_MS have passed: its last value. */
async function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const deliveriesOf = async (client: ServiceClient, webhookId: string) =>
  ok(await client.GET("/v1/webhooks/{webhook_id}/deliveries", { params: { path: { webhook_id: webhookId } } }));

/** The newest delivery of a subscription once `done` holds (by default: no longer pending), or as it is after WAIT_MS. */
async function settled(
  client: ServiceClient,
  webhookId: string,
  done: (delivery: { status: string; attempt_count: number }) => boolean = (delivery) => delivery.status !== "pending",
) {
  const list = await readUntil(
    () => deliveriesOf(client, webhookId),
    ({ data: [delivery] }) => delivery !== undefined && done(delivery),
  );
  return list.data[0];
}

/** The subscription once the worker has disabled it, or as it is after WAIT_MS. */
const onceDisabled = (client: ServiceClient, webhookId: string) =>
  readUntil(
    async () => ok(await client.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: webhookId } } })),
    (state) => !state.enabled,
  );

/** A subscription to `path`, answered 503 with `Retry-After: 120`, and its delivery once attempt 1 is recorded. */
async function waitingOnRetry(path: string) {
  const client = await newClient();
  receiver.respond = (request) =>
    request.path === path ? { status: 503, headers: { "retry-after": "120" } } : { status: 204 };
  const subscription = ok(
    await client.POST("/v1/webhooks", { body: { url: `${receiver.url}${path}`, events: ["lead.captured"] } }),
  );
  ok(await client.POST("/v1/leads", { body: { name: path } }));
  await receiver.waitFor(1, path);
  const delivery = await settled(client, subscription.id, (d) => d.attempt_count === 1);
  return { client, subscription, delivery, id: delivery?.id ?? "" };
}

/** Runs `inspect` with a pg-boss of the service's queue schema that neither migrates nor maintains anything. */
async function withQueue(inspect: (boss: PgBoss) => Promise<void>): Promise<void> {
  const boss = new PgBoss({
    connectionString: service.databaseUrl,
    schema: QUEUE_SCHEMA,
    supervise: false,
    schedule: false,
    migrate: false,
    max: 1,
  });
  await boss.start();
  try {
    await inspect(boss);
  } finally {
    await boss.stop({ graceful: false });
  }
}

describe("signed webhook delivery", () => {
  it("delivers lead.captured, conversation.created and ticket.updated, verified by our verifier and by standardwebhooks", async () => {
    const client = await newClient();
    const subscription = ok(
      await client.POST("/v1/webhooks", {
        body: { url: `${receiver.url}/all`, events: ["lead.captured", "conversation.created", "ticket.updated"] },
      }),
    );
    expect(subscription.secret).toMatch(/^whsec_/);

    const lead = ok(await client.POST("/v1/leads", { body: { email: "hooked@example.com" } }));
    ok(await client.POST("/v1/conversations", { body: { lead_id: lead.id } }));
    const ticket = ok(await client.POST("/v1/tickets", { body: { subject: "Hook me" } }));
    ok(
      await client.PATCH("/v1/tickets/{ticket_id}", {
        params: { path: { ticket_id: ticket.id } },
        body: { status: "open" },
      }),
    );

    const deliveries = await receiver.waitFor(4, "/all");
    const standard = new StandardWebhook(subscription.secret);
    const types = [];
    for (const delivery of deliveries) {
      expect(delivery.headers["x-service-signature"]).toBe(delivery.headers["webhook-signature"]);
      expect(delivery.headers["x-service-event"]).toBeTruthy();
      expect(delivery.headers["x-service-delivery"]).toMatch(/^dlv_/);
      const event = await verifier.verifyWebhook({
        payload: delivery.body,
        headers: delivery.headers,
        secret: subscription.secret,
      });
      expect(event.id).toBe(delivery.headers["webhook-id"]);
      expect(standard.verify(delivery.body, delivery.headers)).toEqual(event);
      types.push(event.type);
    }
    expect(types.sort()).toEqual(["conversation.created", "lead.captured", "ticket.updated", "ticket.updated"]);
    const leadEvent = JSON.parse(
      deliveries.find((d) => d.headers["x-service-event"] === "lead.captured")?.body ?? "{}",
    );
    expect(leadEvent.data.object).toEqual(lead);

    // Wait until the worker has recorded the last answer (the receiver sees the request first).
    await settled(client, subscription.id);
    const list = await readUntil(
      () => deliveriesOf(client, subscription.id),
      ({ data }) => data.every((delivery) => delivery.status === "succeeded"),
    );
    expect(list.data).toHaveLength(4);
    expect(list.data.every((delivery) => delivery.status === "succeeded" && delivery.attempts.length === 1)).toBe(true);
  });

  it("retries a failing receiver with the same webhook-id and growing delays, then succeeds", async () => {
    const client = await newClient();
    receiver.respond = (request, count) =>
      request.path === "/flaky" && count <= 2 ? { status: 500 } : { status: 204 };
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/flaky`, events: ["lead.captured"] } }),
    );
    ok(await client.POST("/v1/leads", { body: { name: "Retry me" } }));
    const attempts = await receiver.waitFor(3, "/flaky");
    expect(new Set(attempts.map((attempt) => attempt.headers["webhook-id"])).size).toBe(1);
    const [a, b, c] = attempts.map((attempt) => attempt.at) as [number, number, number];
    // Each wait is at least its schedule entry less the jitter; a loaded machine only adds to it, to either wait, so
    // the waits are held to those least values rather than to each other. The second's (800 ms) is more than the
    // first can be (360 ms): the delays grow. 50 ms are left for the receiver's clock against the database's.
    const [first = 0, second = 0] = SCHEDULE.map((seconds) => seconds * 1000 * (1 - JITTER) - 50);
    expect(b - a, "the wait before attempt 2, ms").toBeGreaterThanOrEqual(first);
    expect(c - b, "the wait before attempt 3, ms").toBeGreaterThanOrEqual(second);
    // The receiver has answered; the worker records the attempt a moment later.
    const delivery = await settled(client, subscription.id);
    expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 3 });
    expect(delivery?.attempts.map((attempt) => attempt.response_status)).toEqual([500, 500, 204]);
  });

  it("keeps a failing receiver's next attempt waiting in pg-boss, with the schedule's startAfter", async () => {
    const { delivery, id } = await waitingOnRetry("/later");
    expect(delivery).toMatchObject({ status: "pending", attempt_count: 1 });
    const due = Date.parse(delivery?.next_attempt_at ?? "");
    // At least the receiver's Retry-After (120 s), more than the schedule's 0.3 s.
    expect(due - Date.now()).toBeGreaterThan(110_000);
    await withQueue(async (boss) => {
      expect(await boss.getJobById(DELIVERY_QUEUE, deliveryJobId(id, 1))).toMatchObject({ state: "completed" });
      const next = await boss.getJobById(DELIVERY_QUEUE, deliveryJobId(id, 2));
      expect(next).toMatchObject({ state: "created", data: { delivery_id: id, attempt: 2 } });
      expect(Math.abs((next?.startAfter.getTime() ?? 0) - due)).toBeLessThan(2_000);
    });
  });

  it("settles a delivery as failed once its attempt's job has failed every time pg-boss tried it", async () => {
    const { client, subscription, id } = await waitingOnRetry("/poison");
    await withQueue(async (boss) => {
      // Attempt 2's job, tried as often as its retry limit allows (each try counted when a worker took it), fails once
      // more, as a worker's crash or an outcome that could not be recorded fails it.
      const job = deliveryJobId(id, 2);
      await pool.query(`UPDATE ${QUEUE_SCHEMA}.job SET retry_count = retry_limit WHERE name = $1 AND id = $2`, [
        DELIVERY_QUEUE,
        job,
      ]);
      await boss.fail(DELIVERY_QUEUE, job, { message: "crashed" });
      expect(await boss.getJobById(DELIVERY_QUEUE, job)).toMatchObject({ state: "failed", retryCount: 10 });
    });
    const given = await settled(client, subscription.id);
    expect(given).toMatchObject({ id, status: "failed", attempt_count: 1, next_attempt_at: null });
    expect(service.server.logs.some((entry) => entry.msg?.toString().startsWith("delivery given up"))).toBe(true);
  });

  it("holds back no delivery behind a slow receiver", async () => {
    const client = await newClient();
    // The slow receiver holds its answer until the second lead's delivery beside it has arrived (at most 10 s, so a
    // worker that waits for the slow attempt is not stuck until its timeout): arriving while the answer is held is
    // what shows that delivery was not held back, however long the machine takes to send it.
    let slowHeld = true;
    let answerSlow: () => void = () => undefined;
    const slowAnswer = new Promise<void>((resolve) => {
      answerSlow = () => {
        slowHeld = false;
        clearTimeout(cap);
        resolve();
      };
    });
    const cap = setTimeout(() => answerSlow(), 10_000);
    let arrivedWhileHeld = false;
    receiver.respond = (request, count) => {
      if (request.path === "/slow") return { status: 204, after: slowAnswer };
      if (request.path === "/beside-slow" && count === 2) {
        arrivedWhileHeld = slowHeld;
        answerSlow();
      }
      return { status: 204 };
    };
    for (const path of ["/slow", "/beside-slow"]) {
      ok(await client.POST("/v1/webhooks", { body: { url: `${receiver.url}${path}`, events: ["lead.captured"] } }));
    }
    ok(await client.POST("/v1/leads", { body: { name: "First" } }));
    await receiver.waitFor(1, "/slow");
    // Made while the slow receiver holds its attempt: it leaves at once, not when that attempt ends.
    ok(await client.POST("/v1/leads", { body: { name: "Second" } }));
    await receiver.waitFor(2, "/beside-slow");
    expect(arrivedWhileHeld, "the second delivery beside the slow one arrived while its answer was held").toBe(true);
  });

  it("disables a subscription whose endpoint answers 410", async () => {
    const client = await newClient();
    receiver.respond = (request) => (request.path === "/gone" ? { status: 410 } : { status: 204 });
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/gone`, events: ["lead.captured"] } }),
    );
    ok(await client.POST("/v1/leads", { body: { name: "Gone" } }));
    await receiver.waitFor(1, "/gone");
    const state = await onceDisabled(client, subscription.id);
    expect(state).toMatchObject({ enabled: false, disabled_reason: "endpoint_gone" });
  });

  it("disables a subscription whose deliveries have failed for 5 days straight", async () => {
    const client = await newClient();
    receiver.respond = (request) => (request.path === "/failing" ? { status: 500 } : { status: 204 });
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/failing`, events: ["lead.captured"] } }),
    );
    // Its earlier failures began 5 days and a minute ago.
    await pool.query("UPDATE webhooks SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1", [
      subscription.id,
    ]);
    ok(await client.POST("/v1/leads", { body: { name: "Still failing" } }));
    await receiver.waitFor(1, "/failing");
    const state = await onceDisabled(client, subscription.id);
    expect(state).toMatchObject({ enabled: false, disabled_reason: "failing" });
  });

  it("does not follow a redirect", async () => {
    const client = await newClient();
    receiver.respond = (request) =>
      request.path === "/moved" ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : { status: 204 };
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/moved`, events: ["lead.captured"] } }),
    );
    ok(await client.POST("/v1/leads", { body: { name: "Moved" } }));
    await receiver.waitFor(1, "/moved");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((request) => request.path === "/elsewhere")).toHaveLength(0);
    const delivery = await settled(client, subscription.id, (found) => found.attempt_count >= 1);
    expect(delivery?.attempts[0]).toMatchObject({
      response_status: 302,
      error: expect.stringMatching(/redirect .* not followed/),
    });
  });

  it("signs with both secrets during a rotation, so a receiver with either verifies", async () => {
    const client = await newClient();
    receiver.respond = () => ({ status: 204 });
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/rotate`, events: ["lead.captured"] } }),
    );
    const rotated = ok(
      await client.POST("/v1/webhooks/{webhook_id}/rotate-secret", {
        params: { path: { webhook_id: subscription.id } },
      }),
    );
    expect(rotated.secret).not.toBe(subscription.secret);
    ok(await client.POST("/v1/leads", { body: { name: "Rotated" } }));
    const [delivery] = await receiver.waitFor(1, "/rotate");
    expect(delivery?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    for (const secret of [subscription.secret, rotated.secret]) {
      await expect(
        verifier.verifyWebhook({ payload: delivery?.body ?? "", headers: delivery?.headers ?? {}, secret }),
      ).resolves.toBeTruthy();
    }
    // After the overlap the old secret no longer signs.
    await pool.query("UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [
      subscription.id,
    ]);
    ok(await client.POST("/v1/leads", { body: { name: "After overlap" } }));
    const later = (await receiver.waitFor(2, "/rotate"))[1];
    await expect(
      verifier.verifyWebhook({ payload: later?.body ?? "", headers: later?.headers ?? {}, secret: rotated.secret }),
    ).resolves.toBeTruthy();
    await expect(
      verifier.verifyWebhook({
        payload: later?.body ?? "",
        headers: later?.headers ?? {},
        secret: subscription.secret,
      }),
    ).rejects.toMatchObject({ reason: "no_matching_signature" });
  });

  it("sends a test event and redelivers a delivery with the same webhook-id", async () => {
    const client = await newClient();
    receiver.respond = () => ({ status: 204 });
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/test`, events: ["ticket.updated"] } }),
    );
    const test = ok(
      await client.POST("/v1/webhooks/{webhook_id}/test", {
        params: { path: { webhook_id: subscription.id } },
        body: { event_type: "ticket.updated" },
      }),
    );
    const [first] = await receiver.waitFor(1, "/test");
    expect(first?.headers["x-service-event"]).toBe("ticket.updated");
    const again = ok(
      await client.POST("/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", {
        params: { path: { webhook_id: subscription.id, delivery_id: test.id } },
      }),
    );
    expect(again.id).not.toBe(test.id);
    const delivered = await client.GET("/v1/webhooks/{webhook_id}/deliveries/{delivery_id}", {
      params: { path: { webhook_id: subscription.id, delivery_id: test.id } },
    });
    expect(delivered.response.status).toBe(200);
    expect(delivered.data).toMatchObject({ id: test.id, webhook_id: subscription.id, event_type: "ticket.updated" });
    const [, second] = await receiver.waitFor(2, "/test");
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
  });
});
