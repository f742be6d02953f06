/**
 * WEBHOOK_MAX_DELIVERIES_PER_SECOND: a worker drains a backlog at its set pace, not as fast as the CPU allows, so that
 * a burst of deliveries does not take the machine from the API. One event fanned out to 20 subscriptions makes 20
 * deliveries at once; at 10 a second they leave a tenth of a second apart, over nearly two seconds. (Only the least
 * time is asserted: the pace guarantees it on any machine, while a slow machine may take longer. It is read from the
 * attempts' start times in the deliveries log, taken when an attempt leaves the pace, not from the receiver's arrival
 * times, which add each attempt's own connection time: the first ones open new TLS connections, slowly on a loaded
 * machine, and arrive late enough to shrink the span.)
 */
import type { ServiceClient } from "@service/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Receiver } from "../helpers/receiver.ts";
import { ok } from "../helpers/sdk.ts";
import { startWebhookService, type WebhookService } from "../helpers/webhook-service.ts";

const SUBSCRIPTIONS = 20;
const PER_SECOND = 10;

let service: WebhookService;
let receiver: Receiver;
let client: ServiceClient;

beforeAll(async () => {
  service = await startWebhookService({ WEBHOOK_MAX_DELIVERIES_PER_SECOND: String(PER_SECOND) });
  receiver = service.receiver;
  client = await service.newClient();
});

afterAll(async () => {
  await service?.stop();
});

describe("WEBHOOK_MAX_DELIVERIES_PER_SECOND", () => {
  it("drains 20 deliveries of one event at 10 a second, over nearly two seconds", async () => {
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      ok(await client.POST("/v1/webhooks", { body: { url: `${receiver.url}/paced/${i}`, events: ["lead.captured"] } }));
    }
    ok(await client.POST("/v1/leads", { body: { email: "paced@example.com" } }));
    await expect
      .poll(() => receiver.received.filter((request) => request.path.startsWith("/paced/")).length, { timeout: 15_000 })
      .toBe(SUBSCRIPTIONS);
    // The outcomes are written after the answers arrive: wait until every attempt is in the log.
    const started = async () =>
      (
        await service.pool.query<{ ms: number }>(
          "SELECT (extract(epoch FROM started_at) * 1000)::float8 AS ms FROM delivery_attempts ORDER BY started_at",
        )
      ).rows.map((row) => row.ms);
    await expect.poll(async () => (await started()).length).toBe(SUBSCRIPTIONS);
    const times = await started();
    const spanMs = Math.max(...times) - Math.min(...times);
    // The last starts 19 tenths of a second after the first, however fast the machine (100 ms are left for timers'
    // and timestamps' rounding); without the pace all 20 start within some tens of milliseconds.
    expect(
      spanMs,
      `attempts' start times, ms: ${times.map((ms) => Math.round(ms - (times[0] ?? 0)))}`,
    ).toBeGreaterThanOrEqual(((SUBSCRIPTIONS - 1) / PER_SECOND) * 1000 - 100);
    // Every one of them, each once.
    expect(new Set(receiver.received.map((request) => request.path)).size).toBe(SUBSCRIPTIONS);
  });
});
