/**
 * An endpoint's health, its recovery and its attempts: the health for the last 24 hours on its page and its success
 * rate in the list; Recover failed deliveries (a dry run's count, then Confirm sends them again); Enable offering what a
 * disabled endpoint missed; an attempt's request as sent. Failed deliveries are made by a receiver that refuses them,
 * with the retry schedule compressed to one retry 0.2 s after the first attempt.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import { ok } from "../helpers/sdk.ts";
import {
  deliveriesOf,
  openEndpoint,
  readWebhook,
  sendTestEvent,
  subscribe,
  useEndpointJourneys,
} from "./endpoint-journeys.ts";

const DAY_MS = 24 * 3600 * 1000;

/** The instant a `datetime-local` input holds, read as the page reads it (in the browser's time zone). */
function instantOf(page: Page, label: string): Promise<number> {
  return page
    .getByRole("dialog")
    .getByLabel(label)
    .evaluate((input) => new Date((input as HTMLInputElement).value).getTime());
}

describe.runIf(runBrowserTests)("console: an endpoint's health and recovery", () => {
  const journeys = useEndpointJourneys({ WEBHOOK_RETRY_SCHEDULE: "0.2" });

  it("shows an endpoint's health over the last 24 hours, and its success rate in the list", async () => {
    const webhook = await subscribe(journeys(), "/health");
    const quiet = await subscribe(journeys(), "/quiet");
    // The first delivery is accepted; the next is refused at both of its attempts.
    journeys().answers.set("/health", (count) => (count === 1 ? 204 : 500));
    await sendTestEvent(journeys(), webhook.id);
    await expect.poll(async () => (await deliveriesOf(journeys(), webhook.id))[0]?.status).toBe("succeeded");
    await sendTestEvent(journeys(), webhook.id);
    await expect
      .poll(async () => (await deliveriesOf(journeys(), webhook.id)).map((delivery) => delivery.status))
      .toEqual(["failed", "succeeded"]);
    const stats = ok(
      await journeys().client.GET("/v1/webhooks/{webhook_id}/stats", {
        params: { path: { webhook_id: webhook.id } },
      }),
    );
    expect(stats).toMatchObject({
      deliveries: { succeeded: 1, failed: 1, pending: 0 },
      attempts: 3,
      success_rate: 0.5,
    });

    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    const health = page.getByRole("region", { name: "Health, last 24 hours" });
    await expect.poll(() => health.innerText()).toMatch(/Success rate\s+50%/);
    const figures = await health.innerText();
    expect(figures).toMatch(/Succeeded\s+1\s+Failed\s+1\s+Pending\s+0\s+Attempts\s+3\s/);
    const { p50, p99 } = stats.response_time_ms;
    expect(figures).toContain(`Response p50\n${Math.round(p50 ?? Number.NaN)} ms`);
    expect(figures).toContain(`Response p99\n${Math.round(p99 ?? Number.NaN)} ms`);
    await capture(page, "webhook-health");

    await page.getByRole("link", { name: "← Webhooks" }).click();
    const rateOf = (url: string) =>
      page
        .getByRole("row")
        .filter({ has: page.getByRole("link", { name: url, exact: true }) })
        .locator('td[data-label="Success rate (24 h)"]')
        .innerText();
    await expect.poll(() => rateOf(webhook.url)).toBe("50%");
    // Nothing settled yet: no rate, rather than 0 % or 100 %.
    await expect.poll(() => rateOf(quiet.url)).toBe("—");
    await capture(page, "webhooks-success-rate");
  });

  it("recovers failed deliveries: the dry run's count first, then Confirm sends them again", async () => {
    const path = "/recover";
    const webhook = await subscribe(journeys(), path);
    journeys().answers.set(path, () => 503);
    await sendTestEvent(journeys(), webhook.id);
    await sendTestEvent(journeys(), webhook.id);
    await expect
      .poll(async () => (await deliveriesOf(journeys(), webhook.id)).map((delivery) => delivery.status))
      .toEqual(["failed", "failed"]);
    const refused = journeys().receiver.received.filter((request) => request.path === path);
    expect(refused).toHaveLength(4);
    // The endpoint works again.
    journeys().answers.delete(path);

    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    const recoveries: { dry_run?: boolean }[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith(`/api/workspace/webhooks/${webhook.id}/recover`)) {
        recoveries.push(request.postDataJSON());
      }
    });
    await page.getByRole("button", { name: "Recover failed deliveries…" }).click();
    const dialog = page.getByRole("dialog", { name: "Recover failed deliveries" });
    // From 24 hours ago by default, to the minute.
    const fromDefault = Date.now() - (await instantOf(page, "Recover since"));
    expect(fromDefault).toBeGreaterThanOrEqual(DAY_MS);
    expect(fromDefault).toBeLessThan(DAY_MS + 2 * 60_000);
    expect(await dialog.getByRole("checkbox", { name: "Include missed events" }).isChecked()).toBe(false);
    expect(await dialog.getByRole("button", { name: "Confirm" }).count()).toBe(0);

    await dialog.getByRole("button", { name: "Check what will be sent" }).click();
    await dialog.getByText("2 failed deliveries and 0 missed events will be sent again").waitFor();
    await capture(page, "webhook-recover-count");
    // Counting sent nothing.
    expect(recoveries).toMatchObject([{ dry_run: true }]);
    expect((await deliveriesOf(journeys(), webhook.id)).map((delivery) => delivery.status)).toEqual([
      "failed",
      "failed",
    ]);

    await dialog.getByRole("button", { name: "Confirm" }).click();
    await dialog.getByText("Recovery started: 2 failed deliveries and 0 missed events are being sent again").waitFor();
    await capture(page, "webhook-recover-started");
    expect(recoveries).toMatchObject([{ dry_run: true }, { dry_run: false }]);
    const all = await journeys().receiver.waitFor(refused.length + 2, path);
    const ids = (requests: typeof all) => requests.map((request) => request.headers["webhook-id"]).sort();
    // Each sent again with its original webhook-id, so that a receiver can drop one it already processed.
    expect(ids(all.slice(refused.length))).toEqual([...new Set(ids(refused))]);
    await expect
      .poll(async () => (await deliveriesOf(journeys(), webhook.id)).map((delivery) => delivery.status))
      .toEqual(["succeeded", "succeeded"]);

    await dialog.getByRole("button", { name: "Done" }).click();
    const deliveries = page.getByRole("table", { name: "Deliveries to this endpoint, newest first" });
    await expect.poll(() => deliveries.getByText("succeeded", { exact: true }).count()).toBe(2);
    expect(await deliveries.getByText("failed", { exact: true }).count()).toBe(0);
  });

  it("offers, after Enable, to send what the endpoint missed since it was disabled", async () => {
    const path = "/missed";
    const webhook = await subscribe(journeys(), path);
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    await page.getByRole("button", { name: "Disable" }).click();
    await page.getByRole("button", { name: "Enable" }).waitFor();
    const { disabled_at: disabledAt } = await readWebhook(journeys(), webhook.id);
    // An event of its type while it is disabled: it never reaches the endpoint.
    ok(await journeys().client.POST("/v1/leads", { body: { name: "Captured while disabled" } }));

    await page.getByRole("button", { name: "Enable" }).click();
    const dialog = page.getByRole("dialog", { name: "Recover failed deliveries" });
    await dialog.getByText("The endpoint is enabled again").waitFor();
    // From when it was disabled (to the minute, rounded down so that the window holds it), missed events included.
    const fromDisabled = Date.parse(disabledAt ?? "") - (await instantOf(page, "Recover since"));
    expect(fromDisabled).toBeGreaterThanOrEqual(0);
    expect(fromDisabled).toBeLessThan(60_000);
    expect(await dialog.getByRole("checkbox", { name: "Include missed events" }).isChecked()).toBe(true);
    expect(journeys().receiver.received.filter((request) => request.path === path)).toEqual([]);

    await dialog.getByRole("button", { name: "Check what will be sent" }).click();
    await dialog.getByText("0 failed deliveries and 1 missed event will be sent again").waitFor();
    await capture(page, "webhook-enabled-recover");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await dialog.getByText("Recovery started").waitFor();
    const [missed] = await journeys().receiver.waitFor(1, path);
    expect(JSON.parse(missed?.body ?? "{}")).toMatchObject({ type: "lead.captured" });
    expect(missed?.body).toContain("Captured while disabled");
  });

  it("shows an attempt's request as sent, its exact body and headers, beside the response, never the secret", async () => {
    const path = "/attempt";
    const webhook = await subscribe(journeys(), path);
    // 200 with a body ("ok"), for the response beside the request.
    journeys().answers.set(path, () => 200);
    await sendTestEvent(journeys(), webhook.id);
    const [sent] = await journeys().receiver.waitFor(1, path);
    await expect.poll(async () => (await deliveriesOf(journeys(), webhook.id))[0]?.status).toBe("succeeded");

    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    await page.getByRole("link", { name: "View attempts" }).click();
    await page.getByRole("heading", { name: "Attempt 1: 200" }).waitFor();
    const request = page.getByRole("region", { name: "Request" });
    expect(await request.locator("pre").textContent()).toBe(sent?.body);
    const headers = await request
      .getByRole("table", { name: "Request headers of attempt 1" })
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => [row.children[0]?.textContent, row.children[1]?.textContent]));
    const shown = Object.fromEntries(headers.map(([name, value]) => [String(name).toLowerCase(), value]));
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature", "content-type"]) {
      expect(shown[name], name).toBe(sent?.headers[name]);
    }
    // Every header shown is one the receiver got, with the value it got.
    for (const [name, value] of Object.entries(shown)) expect(sent?.headers[name], name).toBe(value);
    await page.getByRole("region", { name: "Response" }).getByText("ok", { exact: true }).waitFor();
    const html = await page.content();
    expect(html).not.toContain("whsec_");
    expect(html).not.toContain(webhook.secret.replace(/^whsec_/, ""));
    await capture(page, "delivery-attempt");
  });
});
