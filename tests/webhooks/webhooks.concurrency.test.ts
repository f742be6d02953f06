/**
 * Paced subscriptions under a busy integration (issue 41): 40 clients at once send test events, redeliver, recover,
 * PATCH and delete (then recreate) subscriptions with `max_deliveries_per_second`, and create leads whose event fans out
 * to them, while the worker delivers to a receiver that mostly succeeds, sometimes fails and now and then answers 410.
 * Every statement that locks a subscription, its deliveries, its incidents or its pace follows the one lock order of
 * docs/webhook-deliveries.md, and a conflict that still happens is run again (the worker) or answered 503
 * `WRITE_CONFLICT` (the API): no answer is a 5xx, and every attempt the receiver saw is recorded in the deliveries log.
 *
 * It runs CONCURRENCY_TEST_SECONDS (300 unless set; CI's embedded section sets a shorter one). */
import { createInterface } from "node:readline";
import type { ServiceClient } from "@service/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok } from "../helpers/sdk.ts";
import { startWebhookService, type WebhookService } from "../helpers/webhook-service.ts";

const SECONDS = Number(process.env.CONCURRENCY_TEST_SECONDS ?? 300);
const CLIENTS = 40;
const SUBSCRIPTIONS = 3;
/** How long the attempts in flight when the clients stop may take to be recorded. */
const SETTLE_MS = 30_000;

let service: WebhookService;
let notRecorded = 0;

beforeAll(async () => {
  service = await startWebhookService({
    // Three attempts 0.2 s apart: failures are retried, then given up, within the run.
    WEBHOOK_RETRY_SCHEDULE: "0.2,0.2",
    WEBHOOK_POLL_INTERVAL_MS: "500",
    API_RATE_LIMIT_PER_MINUTE: "1000000",
  });
  createInterface({ input: service.server.child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    if (line.includes('"msg":"delivery attempt not recorded"')) notRecorded++;
  });
});

afterAll(async () => {
  await service?.stop();
});

/** Mostly 204, a failure in five, a 410 in two hundred; answered after up to 20 ms. */
function answer(): { status: number; delayMs: number } {
  const roll = Math.random();
  const status = roll < 0.005 ? 410 : roll < 0.2 ? 500 : 204;
  return { status, delayMs: Math.floor(Math.random() * 20) };
}

interface Slot {
  id: string;
  deliveries: string[];
  replacing: boolean;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

async function subscribe(client: ServiceClient): Promise<string> {
  const created = ok(
    await client.POST("/v1/webhooks", {
      body: {
        url: `${service.receiver.url}/paced`,
        events: ["lead.captured"],
        max_deliveries_per_second: 5 + Math.floor(Math.random() * 20),
      },
    }),
  );
  return created.id;
}

type Answer = { response: Response; error?: unknown; data?: unknown };

/** One operation of a busy integration on a random subscription. */
async function act(client: ServiceClient, slots: Slot[], since: string): Promise<Answer> {
  const slot = pick(slots);
  const webhook = { params: { path: { webhook_id: slot.id } } };
  const roll = Math.random();
  if (roll < 0.05) return client.POST("/v1/leads", { body: { name: "Fan-out" } });
  if (roll < 0.4 || (roll < 0.55 && slot.deliveries.length === 0)) {
    const sent = await client.POST("/v1/webhooks/{webhook_id}/test", { ...webhook, body: {} });
    if (sent.data) slot.deliveries.push(sent.data.id);
    return sent;
  }
  if (roll < 0.55) {
    const params = { path: { webhook_id: slot.id, delivery_id: pick(slot.deliveries) } };
    return client.POST("/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", { params });
  }
  if (roll < 0.65) return client.POST("/v1/webhooks/{webhook_id}/recover", { ...webhook, body: { since } });
  if (roll < 0.995) {
    const body = pick([
      { enabled: false },
      { enabled: true },
      { enabled: true },
      { enabled: true },
      { max_deliveries_per_second: 2 + Math.floor(Math.random() * 30) },
      { max_concurrent_deliveries: 1 + Math.floor(Math.random() * 10) },
    ]);
    return client.PATCH("/v1/webhooks/{webhook_id}", { ...webhook, body });
  }
  if (slot.replacing) return client.GET("/v1/webhooks/{webhook_id}", webhook);
  slot.replacing = true;
  const deleted = await client.DELETE("/v1/webhooks/{webhook_id}", webhook);
  if (deleted.response.status === 204) Object.assign(slot, { id: await subscribe(client), deliveries: [] });
  slot.replacing = false;
  return deleted;
}

describe("paced subscriptions under 40 clients at once", () => {
  it(
    "answers no 5xx and records every attempt the receiver saw",
    async () => {
      service.receiver.respond = () => answer();
      // No retries: every answer the service gives is counted as it is.
      const client = await service.newClient({ maxRetries: 0 });
      const slots: Slot[] = [];
      for (let i = 0; i < SUBSCRIPTIONS; i++)
        slots.push({ id: await subscribe(client), deliveries: [], replacing: false });
      const since = new Date(Date.now() - 1000).toISOString();
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      const deadline = Date.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (Date.now() < deadline) {
            const { response, error } = await act(client, slots, since);
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (response.status >= 500 && failures.length < 20) {
              failures.push(`${response.status} ${new URL(response.url).pathname} ${JSON.stringify(error)}`);
            }
          }
        }),
      );
      const answers = JSON.stringify(Object.fromEntries(statuses));
      const fivexx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
      expect(fivexx, `answers by status: ${answers}\n${failures.join("\n")}`).toBe(0);

      // Every attempt the receiver saw of a delivery that still exists (a deleted subscription takes its deliveries
      // with it) is in the log, once its outcome has had time to be written.
      const seen = new Map<string, number>();
      for (const request of service.receiver.received) {
        const id = request.headers["x-service-delivery"] as string;
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
      const missing = async () => {
        const { rows } = await service.pool.query<{ id: string; recorded: number }>(
          `SELECT d.id, count(a.attempt)::int AS recorded FROM deliveries d
             LEFT JOIN delivery_attempts a ON a.delivery_id = d.id WHERE d.id = ANY($1) GROUP BY d.id`,
          [[...seen.keys()]],
        );
        return rows.reduce((sum, row) => sum + Math.max(0, (seen.get(row.id) ?? 0) - row.recorded), 0);
      };
      await expect.poll(missing, { timeout: SETTLE_MS, interval: 500 }).toBe(0);
      expect(seen.size, `answers by status: ${answers}`).toBeGreaterThan(0);
      expect(notRecorded, "worker lines 'delivery attempt not recorded'").toBe(0);
    },
    SECONDS * 1000 + 120_000,
  );
});
