import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import { accountViaApi, signInViaConsole, uniqueEmail, useConsole } from "./harness.ts";

describe.runIf(runBrowserTests)("console: API keys", () => {
  const harness = useConsole();
  const email = uniqueEmail("keys");
  beforeAll(async () => {
    await accountViaApi(harness(), email);
  });

  const v1 = (key: string, method = "GET", body?: unknown) =>
    fetch(new URL("/v1/leads", harness().url), {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID(),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  async function openApiKeys(page: Page) {
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "API keys", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
  }

  it("adds a key with leads:read only: it reads leads and is refused writing them", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    await page.getByText("No API keys yet").waitFor();
    await capture(page, "api-keys-empty");

    await page.getByRole("button", { name: "Add new key" }).click();
    const dialog = page.getByRole("dialog", { name: "Add new key" });
    await dialog.getByLabel("Name").fill("Reporting");
    const create = dialog.getByRole("button", { name: "Create key" });
    expect(await create.isDisabled()).toBe(true);
    for (const scope of ["leads:read", "leads:write", "events:read"]) {
      expect(await dialog.getByRole("checkbox", { name: scope, exact: true }).isChecked()).toBe(false);
    }
    await dialog.getByRole("checkbox", { name: "leads:read", exact: true }).check();
    expect(await create.isEnabled()).toBe(true);
    await capture(page, "api-key-add");
    await create.click();

    const created = page.getByRole("dialog", { name: "Your new API key" });
    const key = await created.getByRole("textbox", { name: "API key" }).inputValue();
    expect(key).toMatch(/^sk_live_/);
    expect(await created.getByRole("textbox", { name: "API key" }).getAttribute("readonly")).not.toBeNull();
    await created.getByText("it will not be shown again").waitFor();
    await created.getByRole("button", { name: "Copy" }).click();
    await capture(page, "api-key-created");
    await created.getByRole("button", { name: "Done" }).click();
    await page.getByRole("row", { name: /Reporting/ }).waitFor();
    await capture(page, "api-keys");

    expect((await v1(key)).status).toBe(200);
    const write = await v1(key, "POST", { email: "lead@example.com" });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { code: string }).code).toBe("INSUFFICIENT_SCOPE");
  });

  it("rotates a key (both work during the overlap) and revokes the new one (401)", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    await page.getByRole("button", { name: "Add new key" }).click();
    const dialog = page.getByRole("dialog", { name: "Add new key" });
    await dialog.getByLabel("Name").fill("Zapier");
    await dialog.getByRole("checkbox", { name: "leads:read", exact: true }).check();
    await dialog.getByRole("button", { name: "Create key" }).click();
    const oldKey = await page.getByRole("textbox", { name: "API key" }).inputValue();
    await page.getByRole("button", { name: "Done" }).click();

    await page
      .getByRole("row", { name: /Zapier/ })
      .getByRole("button", { name: "Rotate" })
      .click();
    const rotate = page.getByRole("dialog", { name: "Rotate “Zapier”" });
    await rotate.getByText("both keys work").waitFor();
    await capture(page, "api-key-rotate");
    await rotate.getByRole("button", { name: "Rotate key" }).click();
    const rotated = page.getByRole("dialog", { name: "Your rotated API key" });
    const newKey = await rotated.getByRole("textbox", { name: "API key" }).inputValue();
    await rotated.getByText("The previous key keeps working until").waitFor();
    expect(newKey).not.toBe(oldKey);
    expect((await v1(oldKey)).status).toBe(200);
    expect((await v1(newKey)).status).toBe(200);
    await rotated.getByRole("button", { name: "Done" }).click();

    // The newest Zapier row is the rotated key's.
    await page
      .getByRole("row", { name: /Zapier/ })
      .first()
      .getByRole("button", { name: "Revoke" })
      .click();
    const revoke = page.getByRole("dialog", { name: "Revoke “Zapier”?" });
    await capture(page, "api-key-revoke");
    await revoke.getByRole("button", { name: "Revoke key" }).click();
    await revoke.waitFor({ state: "hidden" });
    await page.getByText("Revoked", { exact: true }).first().waitFor();
    expect((await v1(newKey)).status).toBe(401);
  });

  it("returns to Sign in when the session ends, and back to the page afterwards", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    // The list loaded, so no request of the page is in flight: one answered 401 after the DELETE would end the
    // session before the click, and the console would show Sign in with nothing to click (seen in CI).
    await page.getByRole("table").or(page.getByText("No API keys yet")).waitFor();
    await harness().pool.query("DELETE FROM sessions");
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByText("Your session ended. Sign in again").waitFor();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("correct horse battery staple");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/settings/developers/webhooks");
  });

  it("is usable by keyboard alone: Tab reaches Add new key and Enter opens it", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate(() => document.activeElement?.textContent)) === "Add new key") break;
    }
    expect(await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)).toBe("solid");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Add new key" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
  });
});
