/**
 * WEBHOOK_MAX_DELIVERIES_PER_SECOND: a worker drains a backlog at its set pace, not as fast as the CPU allows, so that
 * a burst of deliveries does not take the machine from the API. One event fanned out to 20 subscriptions makes 20
 * deliveries at once; at 10 a second they leave a tenth of a second apart, over nearly two seconds. (Only the least
 * time is asserted: the pace guarantees it on any machine, while a slow machine may take longer.)
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
    const times = receiver.received
      .filter((request) => request.path.startsWith("/paced/"))
      .map((request) => request.at);
    const spanMs = Math.max(...times) - Math.min(...times);
    // The last starts 19 tenths of a second after the first. Half a second is left for the first attempts' slower
    // start (new TLS connections); without the pace all 20 arrive within some 20 ms.
    expect(spanMs).toBeGreaterThanOrEqual(((SUBSCRIPTIONS - 1) / PER_SECOND) * 1000 - 500);
    // Every one of them, each once.
    expect(new Set(receiver.received.map((request) => request.path)).size).toBe(SUBSCRIPTIONS);
  });
});
