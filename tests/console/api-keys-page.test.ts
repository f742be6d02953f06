import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import {
  accountViaApi,
  describedBy,
  isFocused,
  isInView,
  signInViaConsole,
  uniqueEmail,
  useConsole,
} from "./harness.ts";

/**
 * Each text of the elements a selector matches, with the number of lines it takes on screen (the distinct tops of
 * its boxes): a name, a badge, a date.
 */
function textLines(page: Page, selector: string): Promise<{ text: string; lines: number }[]> {
  return page.evaluate((selector) => {
    const texts: { text: string; lines: number }[] = [];
    for (const element of Array.from(document.querySelectorAll(selector))) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent?.trim() ?? "";
        if (!text) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((box) => box.width > 0)
            .map((box) => Math.round(box.top)),
        );
        texts.push({ text, lines: tops.size });
      }
    }
    return texts;
  }, selector);
}

/** A key made through the session API, as the console makes it. */
function createKeyInPage(page: Page, body: { name: string; scopes: string[]; expires_at?: string }) {
  return page.evaluate(async (body) => {
    const session = (await (await fetch("/api/auth/session")).json()) as { csrf_token: string };
    const headers = { "content-type": "application/json", "x-csrf-token": session.csrf_token };
    const created = await fetch("/api/workspace/api-keys", { method: "POST", headers, body: JSON.stringify(body) });
    return ((await created.json()) as { id: string }).id;
  }, body);
}

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
    for (const scope of ["leads:read", "leads:write", "events:read"]) {
      expect(await dialog.getByRole("checkbox", { name: scope, exact: true }).isChecked()).toBe(false);
    }
    await dialog.getByRole("checkbox", { name: "leads:read", exact: true }).check();
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

  it("says at the fields what a key still needs when Create key is pressed too early, and sends nothing", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/workspace/api-keys") {
        posts.push(request.url());
      }
    });
    await page.getByRole("button", { name: "Add new key" }).click();
    const dialog = page.getByRole("dialog", { name: "Add new key" });
    const create = dialog.getByRole("button", { name: "Create key" });
    const name = dialog.getByRole("textbox", { name: "Name" });
    const scopes = dialog.getByRole("group", { name: "Scopes" });

    // Enabled, so that it can be reached and pressed; pressed, it names what is missing where it is missing.
    expect(await create.isEnabled()).toBe(true);
    await create.click();
    await expect.poll(() => describedBy(name)).toContain("Enter a name for the key.");
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    expect(await isFocused(name)).toBe(true);
    expect(await describedBy(scopes)).toContain("Choose at least one scope.");
    await capture(page, "api-key-add-missing");

    await name.fill("Reporting");
    await create.click();
    const leadsRead = dialog.getByRole("checkbox", { name: "leads:read", exact: true });
    await expect.poll(() => isFocused(leadsRead)).toBe(true);
    expect(await describedBy(name)).not.toContain("Enter a name");
    expect(await name.getAttribute("aria-invalid")).toBeNull();
    expect(posts).toEqual([]);

    await leadsRead.check();
    expect(await describedBy(scopes)).not.toContain("Choose at least one scope.");
    await create.click();
    await page.getByRole("dialog", { name: "Your new API key" }).waitFor();
    expect(posts).toHaveLength(1);
  });

  it("keeps the dialog's buttons in view at 1280×800 and 375×812, the last field clear of them", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    await page.getByRole("button", { name: "Add new key" }).click();
    const dialog = page.getByRole("dialog", { name: "Add new key" });
    for (const size of [
      { width: 1280, height: 800 },
      { width: 375, height: 812 },
    ]) {
      await page.setViewportSize(size);
      for (const label of ["Cancel", "Create key"]) {
        expect(await isInView(dialog.getByRole("button", { name: label })), `${label} at ${size.width} px`).toBe(true);
      }
      // Scrolled to its end, the dialog shows its last field above the buttons, not under them.
      await dialog.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
      expect(await isInView(dialog.getByLabel("Expiry")), `Expiry at ${size.width} px`).toBe(true);
      await dialog.evaluate((element) => element.scrollTo({ top: 0 }));
    }
  });

  it("brings the service's refusal into view when Create key is pressed with the form scrolled to its top", async () => {
    const page = await harness().newPage();
    await openApiKeys(page);
    await page.getByRole("button", { name: "Add new key" }).click();
    const dialog = page.getByRole("dialog", { name: "Add new key" });
    await dialog.getByLabel("Name").fill("Unreachable");
    await dialog.getByRole("checkbox", { name: "leads:read", exact: true }).check();
    await page.route("**/api/workspace/api-keys", (route) =>
      route.request().method() === "POST" ? route.abort("connectionrefused") : route.continue(),
    );
    await dialog.evaluate((element) => element.scrollTo({ top: 0 }));
    // A click where the button is, as a person makes it (a locator's click would first scroll the dialog).
    const box = await dialog.getByRole("button", { name: "Create key" }).boundingBox();
    await page.mouse.click((box?.x ?? 0) + (box?.width ?? 0) / 2, (box?.y ?? 0) + (box?.height ?? 0) / 2);
    const refusal = dialog.getByRole("alert");
    await expect.poll(() => refusal.innerText()).toContain("The service cannot be reached");
    await expect.poll(() => isInView(refusal)).toBe(true);
  });

  it("keeps names and dates on one line at 1280 px, and shows each key as a card at 375 px", async () => {
    const page = await harness().newPage();
    const owner = uniqueEmail("table");
    await accountViaApi(harness(), owner);
    await signInViaConsole(page, owner);
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    const ids = [
      await createKeyInPage(page, { name: "Reporting", scopes: ["leads:read"] }),
      await createKeyInPage(page, {
        name: "CRM sync",
        scopes: ["leads:read", "leads:write", "conversations:write", "tickets:read", "webhooks:read", "events:read"],
        expires_at: inDays(30),
      }),
      await createKeyInPage(page, { name: "Nightly export", scopes: ["tickets:read"], expires_at: inDays(365) }),
      await createKeyInPage(page, { name: "Zapier", scopes: ["leads:read", "leads:write"] }),
    ];
    // Every key used a moment ago (the server writes last uses in batches), the last one revoked.
    await harness().pool.query("UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1)", [ids]);
    await harness().pool.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [ids[3]]);
    await page.getByRole("link", { name: "API keys", exact: true }).click();
    await page.getByRole("row", { name: /Nightly export/ }).waitFor();
    await capture(page, "api-keys-table");

    const dates = ["Created", "Last used", "Expires", "Revoked"].map((label) => `td[data-label="${label}"]`).join(", ");
    for (const size of [
      { width: 1280, height: 800 },
      { width: 375, height: 812 },
    ]) {
      await page.setViewportSize(size);
      const wrapped = [...(await textLines(page, "tbody th")), ...(await textLines(page, dates))].filter(
        (text) => text.lines !== 1,
      );
      expect(wrapped, `names and dates at ${size.width} px`).toEqual([]);
      const overflow = await page.evaluate(() => {
        const table = document.querySelector("table") as HTMLTableElement;
        return {
          table: table.getBoundingClientRect().width - (table.parentElement?.clientWidth ?? 0),
          page: document.documentElement.scrollWidth - innerWidth,
        };
      });
      expect(overflow, `overflow at ${size.width} px`).toEqual({ table: 0, page: 0 });
    }
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
