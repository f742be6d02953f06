/**
 * An endpoint's page: Edit endpoint (URL, events, description, throttles), Delete endpoint, and why a disabled one gets
 * nothing. What the console changed is read back through `/v1`.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import {
  type EndpointJourneys,
  openEndpoint,
  readWebhook,
  sendTestEvent,
  subscribe,
  useEndpointJourneys,
} from "./endpoint-journeys.ts";
import { describedBy, isFocused } from "./harness.ts";

/** Says, from the page, why the endpoint is disabled and since when (the instant the service keeps). */
async function expectDisabledNotice(journeys: EndpointJourneys, page: Page, id: string, because: string) {
  const notice = page.getByRole("status").filter({ hasText: "Disabled since" });
  await expect.poll(() => notice.innerText()).toContain(`because ${because}.`);
  const webhook = await readWebhook(journeys, id);
  expect(webhook).toMatchObject({ enabled: false, disabled_at: expect.any(String) });
  const since = notice.locator("time");
  expect(await since.getAttribute("datetime")).toBe(webhook.disabled_at);
  const inWords = await page.evaluate(
    (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)),
    webhook.disabled_at ?? "",
  );
  expect(await since.innerText()).toBe(inWords);
  await page.getByText("Enable the endpoint first").waitFor();
}

describe.runIf(runBrowserTests)("console: an endpoint's settings", () => {
  // One retry, 0.2 s after the first attempt: a refused delivery fails within a second.
  const journeys = useEndpointJourneys({ WEBHOOK_RETRY_SCHEDULE: "0.2" });

  it("edits the URL, events, description and throttles, and the service keeps them", async () => {
    const webhook = await subscribe(journeys(), "/before");
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    const settings = page.getByRole("region", { name: "Settings" });
    await page.getByRole("button", { name: "Edit endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit endpoint" });
    const save = dialog.getByRole("button", { name: "Save changes" });
    expect(await dialog.getByLabel("Endpoint URL").inputValue()).toBe(webhook.url);
    expect(await dialog.getByRole("checkbox", { name: "lead.captured", exact: true }).isChecked()).toBe(true);

    await dialog.getByLabel("Endpoint URL").fill(`${journeys().receiver.url}/after`);
    await dialog.getByLabel("Description").fill("CRM sync");
    await dialog.getByRole("checkbox", { name: "lead.captured", exact: true }).uncheck();
    await dialog.getByRole("checkbox", { name: "lead.updated", exact: true }).check();
    await dialog.getByRole("checkbox", { name: "ticket.updated", exact: true }).check();
    await dialog.getByRole("spinbutton", { name: "Max deliveries per second" }).fill("25");
    await dialog.getByRole("spinbutton", { name: "Max concurrent deliveries" }).fill("3");
    await capture(page, "webhook-edit");
    await save.click();
    await dialog.waitFor({ state: "hidden" });

    const edited = await readWebhook(journeys(), webhook.id);
    expect(edited).toMatchObject({
      url: `${journeys().receiver.url}/after`,
      description: "CRM sync",
      max_deliveries_per_second: 25,
      max_concurrent_deliveries: 3,
    });
    expect([...edited.events].sort()).toEqual(["lead.updated", "ticket.updated"]);
    await expect.poll(() => settings.innerText()).toMatch(/Max deliveries per second\s+25\s/);
    expect(await settings.innerText()).toMatch(/Max concurrent deliveries\s+3\s/);

    // Emptied, a throttle goes back to none of its own (null), and so does the description.
    await page.getByRole("button", { name: "Edit endpoint" }).click();
    expect(await dialog.getByRole("spinbutton", { name: "Max deliveries per second" }).inputValue()).toBe("25");
    await dialog.getByRole("spinbutton", { name: "Max deliveries per second" }).fill("");
    await dialog.getByRole("spinbutton", { name: "Max concurrent deliveries" }).fill("");
    await dialog.getByLabel("Description").fill("");
    await save.click();
    await dialog.waitFor({ state: "hidden" });
    expect(await readWebhook(journeys(), webhook.id)).toMatchObject({
      url: `${journeys().receiver.url}/after`,
      description: null,
      max_deliveries_per_second: null,
      max_concurrent_deliveries: null,
    });
    await expect.poll(() => settings.innerText()).toMatch(/Max concurrent deliveries\s+10 \(the default\)/);
    expect(await settings.innerText()).toMatch(/Max deliveries per second\s+No limit/);
  });

  it("says at the field what the service refused, moves focus there, and changes nothing", async () => {
    const webhook = await subscribe(journeys(), "/refused");
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    const patches: number[] = [];
    page.on("response", (response) => {
      if (response.request().method() === "PATCH") patches.push(response.status());
    });
    await page.getByRole("button", { name: "Edit endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit endpoint" });
    const save = dialog.getByRole("button", { name: "Save changes" });
    const perSecond = dialog.getByRole("spinbutton", { name: "Max deliveries per second" });
    const url = dialog.getByRole("textbox", { name: "Endpoint URL" });

    // The browser's own range check is off: the service's refusal is the one shown, at its field.
    await perSecond.fill("5000");
    await save.click();
    await expect.poll(() => describedBy(perSecond)).toContain("must be <= 1000");
    expect(await perSecond.getAttribute("aria-invalid")).toBe("true");
    expect(await isFocused(perSecond)).toBe(true);
    expect(patches).toEqual([400]);
    await capture(page, "webhook-edit-refused");

    await perSecond.fill("5");
    await url.fill("http://hooks.example.com/in");
    await save.click();
    await expect.poll(() => describedBy(url)).toContain("it must start with https://");
    expect(await isFocused(url)).toBe(true);
    expect(await describedBy(perSecond)).not.toContain("must be");
    expect(patches).toEqual([400, 400]);
    expect(await readWebhook(journeys(), webhook.id)).toMatchObject({
      url: webhook.url,
      max_deliveries_per_second: null,
    });

    // What is missing is said before anything is sent, as Add endpoint does.
    await url.fill("");
    await save.click();
    await expect.poll(() => describedBy(url)).toContain("Enter the URL of your endpoint.");
    expect(patches).toHaveLength(2);
  });

  it("deletes an endpoint after a confirmation, and goes back to the list without it", async () => {
    const webhook = await subscribe(journeys(), "/deleted");
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this endpoint?" });
    await dialog.getByText(webhook.url).waitFor();
    await capture(page, "webhook-delete");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await readWebhook(journeys(), webhook.id)).id).toBe(webhook.id);

    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await dialog.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/settings/developers/webhooks");
    await page.getByRole("table").or(page.getByText("No endpoints yet")).waitFor();
    expect(await page.getByRole("link", { name: webhook.url, exact: true }).count()).toBe(0);
    const gone = await journeys().client.GET("/v1/webhooks/{webhook_id}", {
      params: { path: { webhook_id: webhook.id } },
    });
    expect(gone.response.status).toBe(404);
  });

  it("says that an endpoint disabled by hand was disabled by someone, and since when", async () => {
    const webhook = await subscribe(journeys(), "/manual");
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    await page.getByRole("button", { name: "Disable" }).click();
    await expectDisabledNotice(journeys(), page, webhook.id, "someone in this workspace disabled it");
    await capture(page, "webhook-disabled");
  });

  it("says that an endpoint that answered 410 Gone was disabled for it, and since when", async () => {
    const webhook = await subscribe(journeys(), "/gone");
    journeys().answers.set("/gone", () => 410);
    await sendTestEvent(journeys(), webhook.id);
    await expect.poll(async () => (await readWebhook(journeys(), webhook.id)).disabled_reason).toBe("endpoint_gone");
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    await expectDisabledNotice(
      journeys(),
      page,
      webhook.id,
      "it answered 410 Gone, which asks senders to stop for good",
    );
  });

  it("says that an endpoint whose deliveries failed for 5 days was disabled for it, and since when", async () => {
    const webhook = await subscribe(journeys(), "/failing");
    journeys().answers.set("/failing", () => 500);
    // A failing streak that began 5 days ago (the service's clock cannot be moved): the next failure disables it.
    await journeys().harness.pool.query(
      "UPDATE webhooks SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1",
      [webhook.id],
    );
    await sendTestEvent(journeys(), webhook.id);
    await expect.poll(async () => (await readWebhook(journeys(), webhook.id)).disabled_reason).toBe("failing");
    const page = await journeys().harness.newPage();
    await openEndpoint(journeys(), page, webhook.url);
    await expectDisabledNotice(journeys(), page, webhook.id, "every delivery to it failed for 5 days");
  });
});
