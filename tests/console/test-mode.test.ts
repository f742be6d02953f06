/**
 * The console's test mode in a real browser (issue 42): a visible switch, a banner while in test mode, and every
 * page (API keys, webhooks, deliveries) showing that mode's data only; a key made in test mode is a `sk_test_` key.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import { makeCertificates, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { accountViaApi, apiKeyViaSession, signInViaConsole, uniqueEmail, useConsole } from "./harness.ts";

const certificates = await makeCertificates();

describe.runIf(runBrowserTests)("console: test mode", () => {
  const harness = useConsole({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", NODE_EXTRA_CA_CERTS: certificates.caFile });
  const email = uniqueEmail("modes");
  let receiver: Receiver;
  let liveKey: string;
  let testKey: string;
  beforeAll(async () => {
    receiver = await startReceiver(certificates);
    receiver.respond = () => ({ status: 200 });
    await accountViaApi(harness(), email);
    const scopes = ["webhooks:read", "webhooks:write", "leads:write"];
    liveKey = await apiKeyViaSession(harness(), email, scopes, undefined, "live");
    testKey = await apiKeyViaSession(harness(), email, scopes, undefined, "test");
  });
  afterAll(() => receiver?.close());

  const v1 = (key: string, path: string, body: unknown) =>
    fetch(new URL(path, harness().url), {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  async function modeSwitch(page: Page) {
    return page.getByRole("switch", { name: "Test mode" });
  }

  it("shows live keys in live mode and test keys in test mode, and makes a sk_test_ key there", async () => {
    expect([liveKey.slice(0, 8), testKey.slice(0, 8)]).toEqual(["sk_live_", "sk_test_"]);
    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "API keys", exact: true }).click();
    await page.getByRole("row", { name: /Console journeys/ }).waitFor();
    expect(await page.getByRole("row", { name: /Test journeys/ }).count()).toBe(0);
    expect(await (await modeSwitch(page)).isChecked()).toBe(false);
    expect(await page.getByRole("status").filter({ hasText: "Test mode:" }).count()).toBe(0);

    await (await modeSwitch(page)).check();
    await page.getByRole("status").filter({ hasText: "Test mode:" }).waitFor();
    await page.getByRole("row", { name: /Test journeys/ }).waitFor();
    expect(await page.getByRole("row", { name: /Console journeys/ }).count()).toBe(0);
    await capture(page, "api-keys-test-mode");

    await page.getByRole("button", { name: "Add new key" }).click();
    const dialog = page.getByRole("dialog", { name: "Add new key" });
    await dialog.getByLabel("Name").fill("CI");
    await dialog.getByRole("checkbox", { name: "test_data:write", exact: true }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    const created = page.getByRole("dialog", { name: "Your new API key" });
    const key = await created.getByRole("textbox", { name: "API key" }).inputValue();
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    await created.getByRole("button", { name: "Done" }).click();
    await page.getByRole("row", { name: /CI/ }).waitFor();

    // A reload keeps the mode; switching back shows live mode's keys only, and offers no test-data scope.
    await page.reload();
    await page.getByRole("row", { name: /Test journeys/ }).waitFor();
    expect(await (await modeSwitch(page)).isChecked()).toBe(true);
    await (await modeSwitch(page)).uncheck();
    await page.getByRole("row", { name: /Console journeys/ }).waitFor();
    expect(await page.getByRole("row", { name: /CI|Test journeys/ }).count()).toBe(0);
    await page.getByRole("button", { name: "Add new key" }).click();
    const liveDialog = page.getByRole("dialog", { name: "Add new key" });
    await liveDialog.getByRole("checkbox", { name: "leads:read", exact: true }).waitFor();
    expect(await liveDialog.getByRole("checkbox", { name: "test_data:write", exact: true }).count()).toBe(0);
  });

  it("lists each mode's endpoints, deliveries and events only, and leaves an endpoint's page for its list", async () => {
    const url = (label: string) => `${receiver.url}/${label}`;
    const made = async (key: string, label: string) => {
      const answer = await v1(key, "/v1/webhooks", { url: url(label), events: ["lead.captured"] });
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { id: string }).id;
    };
    const liveHook = await made(liveKey, "live-hook");
    await made(testKey, "test-hook");
    const created = await v1(testKey, "/v1/leads", { email: "test.lead@example.com" });
    expect(created.status).toBe(201);
    const testLead = ((await created.json()) as { id: string }).id;

    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.goto(`/settings/developers/webhooks/${liveHook}`);
    await page.getByText(url("live-hook")).first().waitFor();
    await (await modeSwitch(page)).check();
    // The live endpoint's page is not test mode's: the console goes back to the list, which shows the test endpoint.
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    await page.getByText(url("test-hook")).first().waitFor();
    expect(await page.getByText(url("live-hook")).count()).toBe(0);
    await page.getByText(url("test-hook")).first().click();
    // The test lead's delivery is listed under the test endpoint.
    await expect.poll(() => page.getByText("lead.captured").count()).toBeGreaterThan(0);
    await capture(page, "webhook-test-mode");

    // Events: test mode's feed from 1, its lead's id, and none of live mode's.
    await page.getByRole("link", { name: "Events", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
    const rows = page.getByRole("row").filter({ hasText: "lead.captured" });
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(testLead);
    await capture(page, "events-test-mode");
    await (await modeSwitch(page)).uncheck();
    await page.getByText("No events yet").waitFor();
  });
});
