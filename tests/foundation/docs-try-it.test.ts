/**
 * The API reference in a real browser: it opens with the /v1 resources, and its "Try it out" must call the service
 * that served the page, on whatever port it listens (here a random one), not the contract's default
 * http://127.0.0.1:3000.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, runBrowserTests } from "../helpers/browser.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService();

describe.runIf(runBrowserTests)("/docs in the browser", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("opens with the /v1 resources a key holder wants, the account and console endpoints last", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${new URL(service().url).origin}/docs`);
      const sections = page.locator(".opblock-tag");
      await expect.poll(() => sections.count(), { timeout: 15_000 }).toBeGreaterThan(5);
      expect(
        await sections.evaluateAll((headings) => headings.map((heading) => heading.getAttribute("data-tag"))),
      ).toEqual([
        "Leads",
        "Conversations",
        "Tickets",
        "Events",
        "Webhooks",
        "Attribute definitions",
        "Test data",
        "Auth",
        "Workspace",
      ]);
    } finally {
      await page.close();
    }
  });

  it("lists the service's own address first and sends Try it out there", async () => {
    const origin = new URL(service().url).origin;
    expect(origin).not.toBe("http://127.0.0.1:3000");
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    try {
      await page.goto(`${origin}/docs#/Leads/Leads_list`);
      const servers = page.locator(".servers select");
      await expect.poll(() => servers.inputValue(), { timeout: 15_000 }).toBe(origin);
      // The contract's own server stays in the list, second.
      expect(await servers.locator("option").allTextContents()).toEqual([
        expect.stringContaining(origin),
        expect.stringContaining("{base_url}"),
      ]);

      const operation = page.locator("#operations-Leads-Leads_list");
      await operation.getByRole("button", { name: "Try it out" }).click();
      const answered = page.waitForResponse((response) => response.url().startsWith(`${origin}/v1/leads`));
      await operation.getByRole("button", { name: "Execute" }).click();
      const response = await answered;
      // No key given: the service itself answers, 401.
      expect(response.status()).toBe(401);
      expect(await operation.locator(".request-url pre").textContent()).toMatch(new RegExp(`^${origin}/v1/leads`));
      expect(requests.filter((url) => url.includes(":3000/"))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
