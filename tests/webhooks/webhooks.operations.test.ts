/**
 * Webhook operations end to end, on the service as its own process and a real HTTPS receiver: one recover call sends
 * an outage's failed deliveries again with their original ids at the subscription's own pace; missed events are
 * delivered in sequence order; the throttles hold for every attempt; stats count what happened; and the owner is
 * e-mailed once per incident. The retry schedule is compressed through configuration.
 */
import type { ServiceClient } from "@service/sdk";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mostInOneSecond } from "../helpers/receiver.ts";
import { ok } from "../helpers/sdk.ts";
import { startWebhookService, type WebhookService } from "../helpers/webhook-service.ts";

let service: WebhookService;
let pool: pg.Pool;

/** Three attempts, 0.2 s apart (each ±20 %): a refused delivery fails for good within about a second. */
const SCHEDULE = "0.2,0.2";
const WAIT_MS = 60_000;

beforeAll(async () => {
  service = await startWebhookService({ WEBHOOK_RETRY_SCHEDULE: SCHEDULE, WEBHOOK_POLL_INTERVAL_MS: "500" });
  ({ pool } = service);
});

afterAll(async () => {
  await service?.stop();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stats = async (client: ServiceClient, webhookId: string, since?: string) =>
  ok(
    await client.GET("/v1/webhooks/{webhook_id}/stats", {
      params: { path: { webhook_id: webhookId }, query: since ? { since } : {} },
    }),
  );

/**
 * When each attempt to the subscription started, as the service recorded it (epoch ms). The throttle promises the
 * attempts that start in any one second; arrivals at the receiver add the network's and TLS's own jitter.
 */
async function attemptStarts(client: ServiceClient, webhookId: string): Promise<number[]> {
  const page = ok(
    await client.GET("/v1/webhooks/{webhook_id}/deliveries", {
      params: { path: { webhook_id: webhookId }, query: { limit: 100 } },
    }),
  );
  expect(page.has_more).toBe(false);
  return page.data.flatMap((delivery) => delivery.attempts.map((attempt) => Date.parse(attempt.started_at)));
}

/** Answers every request on `path` by `status` after `delayMs`, counting how many are in flight at once. */
function answering(path: string, state: { status: number; delayMs: number; inFlight: number; most: number }) {
  const previous = service.receiver.respond;
  service.receiver.respond = (request, count) => {
    if (request.path !== path) return previous(request, count);
    state.inFlight++;
    state.most = Math.max(state.most, state.inFlight);
    const status = state.status;
    const done = new Promise((resolve) => setTimeout(resolve, state.delayMs)).then(() => {
      state.inFlight--;
    });
    return { status, after: done };
  };
}

async function createLeads(client: ServiceClient, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i++) ok(await client.POST("/v1/leads", { body: { name: `${prefix} ${i}` } }));
}

describe("webhook operations", () => {
  it("recovers an outage in one call: every failed delivery once more, original ids, at 10/s and 5 at once", async () => {
    const client = await newClient();
    const receiver = service.receiver;
    const path = "/recover";
    const state = { status: 500, delayMs: 150, inFlight: 0, most: 0 };
    answering(path, state);
    const since = new Date(Date.now() - 1000).toISOString();
    const subscription = ok(
      await client.POST("/v1/webhooks", {
        body: {
          url: `${receiver.url}${path}`,
          events: ["lead.captured"],
          max_deliveries_per_second: 10,
          max_concurrent_deliveries: 5,
        },
      }),
    );
    expect(subscription).toMatchObject({ max_deliveries_per_second: 10, max_concurrent_deliveries: 5 });
    await createLeads(client, 30, "outage");
    const failed = await until(
      () => stats(client, subscription.id, since),
      (s) => s.deliveries.failed === 30,
    );
    expect(failed.deliveries).toEqual({ succeeded: 0, failed: 30, pending: 0 });
    expect(failed.attempts).toBe(90);
    const outage = receiver.received.filter((item) => item.path === path);
    expect(outage).toHaveLength(90);
    // The throttles held for the first attempts and their retries alike.
    const outageStarts = await attemptStarts(client, subscription.id);
    expect(outageStarts).toHaveLength(90);
    expect(mostInOneSecond(outageStarts)).toBeLessThanOrEqual(10);
    expect(state.most).toBeLessThanOrEqual(5);

    state.status = 204;
    state.most = 0;
    const key = `recover-${subscription.id}`;
    const recovered = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      params: { path: { webhook_id: subscription.id }, header: { "Idempotency-Key": key } },
      body: { since },
    });
    expect(recovered.response.status).toBe(202);
    expect(recovered.data).toMatchObject({ object: "webhook_recovery", failed_deliveries: 30, missed_events: 0 });
    const again = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      params: { path: { webhook_id: subscription.id }, header: { "Idempotency-Key": key } },
      body: { since },
    });
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data).toEqual(recovered.data);

    const all = await receiver.waitFor(120, path, WAIT_MS);
    const sent = all.slice(90);
    // Each failed delivery exactly once more, with the webhook-id and body of its first attempt.
    const firstIds = new Map(outage.map((item) => [item.headers["webhook-id"], item.body]));
    expect(new Set(sent.map((item) => item.headers["webhook-id"])).size).toBe(30);
    for (const item of sent) expect(firstIds.get(item.headers["webhook-id"])).toBe(item.body);
    expect(state.most).toBeLessThanOrEqual(5);
    const after = await until(
      () => stats(client, subscription.id, since),
      (s) => s.deliveries.succeeded === 30,
    );
    // The recovery kept the pace too: its attempts and the outage's, as the service recorded their starts.
    const starts = await attemptStarts(client, subscription.id);
    expect(starts).toHaveLength(120);
    expect(mostInOneSecond(starts)).toBeLessThanOrEqual(10);
    expect(after.deliveries).toEqual({ succeeded: 30, failed: 0, pending: 0 });
    expect(after.success_rate).toBe(1);
    expect(after.response_time_ms.p50).toBeGreaterThanOrEqual(100);
    // The idempotent retry sent nothing more.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter((item) => item.path === path)).toHaveLength(120);
  });

  it("never has two attempts in flight to a subscription limited to 1, when 20 fall due at once", async () => {
    const client = await newClient();
    const path = "/one-at-a-time";
    const state = { status: 500, delayMs: 50, inFlight: 0, most: 0 };
    answering(path, state);
    const since = new Date(Date.now() - 1000).toISOString();
    const subscription = ok(
      await client.POST("/v1/webhooks", {
        body: { url: `${service.receiver.url}${path}`, events: ["lead.captured"], max_concurrent_deliveries: 1 },
      }),
    );
    await createLeads(client, 20, "one at a time");
    await until(
      () => stats(client, subscription.id, since),
      (s) => s.deliveries.failed === 20,
    );
    expect(state.most).toBe(1);
    // A recovery enqueues the 20 in one statement: every fetch loop of the worker wakes for them at once.
    state.status = 204;
    const recovered = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      params: { path: { webhook_id: subscription.id } },
      body: { since },
    });
    expect(recovered.data).toMatchObject({ failed_deliveries: 20 });
    const got = await service.receiver.waitFor(80, path, WAIT_MS);
    expect(new Set(got.slice(60).map((item) => item.headers["webhook-id"])).size).toBe(20);
    expect(state.most).toBe(1);
  });

  it("delivers the events missed while disabled, in sequence order, with include_missed", async () => {
    const client = await newClient();
    const path = "/missed";
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${service.receiver.url}${path}`, events: ["lead.captured"] } }),
    );
    const since = new Date(Date.now() - 1000).toISOString();
    const webhook = { params: { path: { webhook_id: subscription.id } } };
    ok(await client.PATCH("/v1/webhooks/{webhook_id}", { ...webhook, body: { enabled: false } }));
    const disabled = ok(await client.GET("/v1/webhooks/{webhook_id}", webhook));
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: "manual" });
    expect(Date.parse(disabled.disabled_at ?? "")).toBeGreaterThan(Date.parse(since));
    await createLeads(client, 3, "missed");

    const refused = await client.POST("/v1/webhooks/{webhook_id}/recover", { ...webhook, body: { since } });
    expect(refused.response.status).toBe(409);
    const preview = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      ...webhook,
      body: { since, include_missed: true, dry_run: true },
    });
    expect(preview.response.status).toBe(200);
    expect(preview.data).toMatchObject({ dry_run: true, failed_deliveries: 0, missed_events: 3 });

    const enabled = ok(await client.PATCH("/v1/webhooks/{webhook_id}", { ...webhook, body: { enabled: true } }));
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
    const recovered = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      ...webhook,
      body: { since, include_missed: true },
    });
    expect(recovered.response.status).toBe(202);
    expect(recovered.data).toMatchObject({ missed_events: 3 });
    const got = await service.receiver.waitFor(3, path, WAIT_MS);
    const events = got.map(
      (item) => JSON.parse(item.body) as { id: string; sequence: number; data: { object: { name: string } } },
    );
    expect(events.map((event) => event.data.object.name).sort()).toEqual(["missed 0", "missed 1", "missed 2"]);
    // Enqueued in sequence order: the first event's job first (pg-boss fetches by priority). Attempts then run side by
    // side, so arrivals may cross; receivers order by `sequence`.
    const { rows: jobs } = await pool.query<{ priority: number; event_id: string }>(
      `SELECT j.priority, d.event_id FROM jobs.job j JOIN deliveries d ON d.id = j.data->>'delivery_id'
        WHERE j.name = 'webhook-delivery' AND d.webhook_id = $1 ORDER BY j.priority DESC`,
      [subscription.id],
    );
    const sequenceOf = new Map(events.map((event) => [event.id, event.sequence]));
    const fetchOrder = jobs.map((job) => sequenceOf.get(job.event_id));
    expect(fetchOrder).toEqual([...fetchOrder].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(new Set(jobs.map((job) => job.priority)).size).toBe(3);
    const { data: list } = ok(await client.GET("/v1/webhooks/{webhook_id}/deliveries", webhook));
    expect(list).toHaveLength(3);
    // A recovery run again finds nothing missed.
    const twice = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      ...webhook,
      body: { since, include_missed: true, dry_run: true },
    });
    expect(twice.data).toMatchObject({ missed_events: 0 });
  });

  it("refuses a window that ends before it starts, and throttles outside their ranges", async () => {
    const client = await newClient();
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${service.receiver.url}/ranges`, events: ["lead.captured"] } }),
    );
    const webhook = { params: { path: { webhook_id: subscription.id } } };
    const now = Date.now();
    const backwards = await client.POST("/v1/webhooks/{webhook_id}/recover", {
      ...webhook,
      body: { since: new Date(now).toISOString(), until: new Date(now - 60_000).toISOString() },
    });
    expect(backwards.response.status).toBe(400);
    expect(backwards.error).toMatchObject({ code: "VALIDATION_FAILED" });
    for (const body of [
      { max_concurrent_deliveries: 0 },
      { max_concurrent_deliveries: 51 },
      { max_deliveries_per_second: 0 },
    ]) {
      const refused = await client.PATCH("/v1/webhooks/{webhook_id}", { ...webhook, body });
      expect(refused.response.status).toBe(400);
    }
    const cleared = ok(
      await client.PATCH("/v1/webhooks/{webhook_id}", {
        ...webhook,
        body: { max_deliveries_per_second: 3, max_concurrent_deliveries: null },
      }),
    );
    expect(cleared).toMatchObject({ max_deliveries_per_second: 3, max_concurrent_deliveries: null });
    const future = await client.GET("/v1/webhooks/{webhook_id}/stats", {
      params: { path: { webhook_id: subscription.id }, query: { since: new Date(now + 3_600_000).toISOString() } },
    });
    expect(future.response.status).toBe(400);
  });

  it("keeps what each attempt sent: the exact body and headers, never the secret", async () => {
    const client = await newClient();
    const path = "/kept";
    const subscription = ok(
      await client.POST("/v1/webhooks", { body: { url: `${service.receiver.url}${path}`, events: ["lead.captured"] } }),
    );
    await createLeads(client, 1, "kept");
    const [received] = await service.receiver.waitFor(1, path, WAIT_MS);
    const webhook = { params: { path: { webhook_id: subscription.id } } };
    const list = await until(
      async () => ok(await client.GET("/v1/webhooks/{webhook_id}/deliveries", webhook)),
      (page) => page.data[0]?.attempts.length === 1,
    );
    const delivery = list.data[0];
    expect(delivery?.payload).toBe(received?.body);
    const headers = delivery?.attempts[0]?.request_headers ?? {};
    for (const name of [
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
      "x-service-signature",
      "content-type",
    ]) {
      expect(headers[name]).toBe(received?.headers[name]);
    }
    expect(JSON.stringify(delivery)).not.toContain(subscription.secret.slice("whsec_".length));
  });
});

describe("trace context, end to end", () => {
  const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  const SPAN = "00f067aa0ba902b7";

  it("gives every attempt of the caused delivery the caller's trace id and a span id of its own", async () => {
    const client = await newClient();
    const path = "/traced";
    const state = { status: 500, delayMs: 0, inFlight: 0, most: 0 };
    answering(path, state);
    ok(
      await client.POST("/v1/webhooks", { body: { url: `${service.receiver.url}${path}`, events: ["lead.captured"] } }),
    );
    const created = await client.POST("/v1/leads", {
      body: { name: "traced" },
      headers: { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: "congo=t61rcWkgMzE" },
    });
    expect(created.response.status).toBe(201);
    const attempts = await service.receiver.waitFor(3, path, WAIT_MS);
    const spans = attempts.map((item) => {
      const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(item.headers.traceparent ?? "");
      expect(match?.[1]).toBe(TRACE);
      expect(item.headers.tracestate).toBe("congo=t61rcWkgMzE");
      return match?.[2];
    });
    expect(new Set(spans).size).toBe(3);
    for (const span of spans) expect(span).not.toMatch(/^0+$|^00f067aa0ba902b7$/);
  });

  it.each([
    ["malformed", "00-xyz"],
    ["all-zero", `00-${"0".repeat(32)}-${SPAN}-01`],
    ["oversized", `01-${TRACE}-${SPAN}-01-${"a".repeat(4000)}`],
  ])("ignores a %s traceparent (a new trace), never answering an error", async (_name, traceparent) => {
    const client = await newClient();
    const path = `/untraced-${_name}`;
    ok(
      await client.POST("/v1/webhooks", { body: { url: `${service.receiver.url}${path}`, events: ["lead.captured"] } }),
    );
    const created = await client.POST("/v1/leads", { body: { name: "untraced" }, headers: { traceparent } });
    expect(created.response.status).toBe(201);
    const listed = await client.GET("/v1/leads", { headers: { traceparent } });
    expect(listed.response.status).toBe(200);
    const session = await fetch(`${service.server.url}/api/auth/session`, { headers: { traceparent } });
    expect(session.status).toBe(401);
    const [attempt] = await service.receiver.waitFor(1, path, WAIT_MS);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(attempt?.headers.traceparent ?? "");
    expect(match?.[1]).not.toBe(TRACE);
    expect(match?.[1]).not.toMatch(/^0+$/);
  });
});

describe("the owner hears of trouble once per incident", () => {
  const outbox = async (kind: string, url: string) =>
    (
      await pool.query<{ to_address: string; text_body: string }>(
        "SELECT to_address, text_body FROM outbox WHERE kind = $1 AND subject LIKE '%' || $2",
        [kind, url],
      )
    ).rows;

  it("e-mails once within 60 s when a 410 disables a subscription", async () => {
    const client = await newClient();
    const path = "/gone";
    const state = { status: 410, delayMs: 0, inFlight: 0, most: 0 };
    answering(path, state);
    const url = `${service.receiver.url}${path}`;
    const subscription = ok(await client.POST("/v1/webhooks", { body: { url, events: ["lead.captured"] } }));
    const started = Date.now();
    await createLeads(client, 3, "gone");
    const mails = await until(
      () => outbox("webhook-disabled", url),
      (rows) => rows.length > 0,
    );
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text_body).toContain("410");
    expect(mails[0]?.text_body).toContain(`/settings/developers/webhooks/${subscription.id}`);
    const webhook = ok(
      await client.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: subscription.id } } }),
    );
    expect(webhook).toMatchObject({ enabled: false, disabled_reason: "endpoint_gone" });
    expect(webhook.disabled_at).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await outbox("webhook-disabled", url)).toHaveLength(1);
  });

  it("e-mails once for 200 deliveries that exhaust their attempts, and again only after a success", async () => {
    const client = await newClient();
    const path = "/exhausted";
    const state = { status: 500, delayMs: 0, inFlight: 0, most: 0 };
    answering(path, state);
    const url = `${service.receiver.url}${path}`;
    const subscription = ok(await client.POST("/v1/webhooks", { body: { url, events: ["lead.captured"] } }));
    await createLeads(client, 200, "exhausted");
    const exhausted = await until(
      () => stats(client, subscription.id),
      (s) => s.deliveries.failed === 200,
    );
    expect(exhausted.deliveries.failed).toBe(200);
    const mails = await until(
      () => outbox("webhook-failing", url),
      (rows) => rows.length > 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await outbox("webhook-failing", url)).toHaveLength(1);
    expect(mails[0]?.to_address).toMatch(/^hooks\./);

    // A success ends the incident; the next exhausted delivery opens another, and its e-mail.
    state.status = 204;
    await createLeads(client, 1, "healthy");
    await until(
      () => stats(client, subscription.id),
      (s) => s.deliveries.succeeded === 1,
    );
    state.status = 500;
    await createLeads(client, 1, "again");
    const second = await until(
      () => outbox("webhook-failing", url),
      (rows) => rows.length > 1,
    );
    expect(second).toHaveLength(2);
  });
});

function newClient(): Promise<ServiceClient> {
  return service.newClient();
}
