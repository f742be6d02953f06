/**
 * The console's Attributes page in a real browser (issue 43): a builder defines a typed field, sees it with its rule,
 * gets the API's refusal of a malformed one at its field, and archives it; each mode has its own.
 */
import { describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import { accountViaApi, apiKeyViaSession, signInViaConsole, uniqueEmail, useConsole } from "./harness.ts";

describe.runIf(runBrowserTests)("console: attributes", () => {
  const harness = useConsole();

  it("defines, lists and archives attributes, and a definition refuses a value through the API at once", async () => {
    const email = uniqueEmail("attributes");
    await accountViaApi(harness(), email);
    const key = await apiKeyViaSession(harness(), email, ["leads:write"], undefined, "live");
    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "Attributes", exact: true }).click();
    await page.getByText("No attributes yet").waitFor();

    const form = page.getByRole("form", { name: "Define an attribute" });
    await form.getByLabel("Key").fill("plan");
    await form.getByLabel("Label").fill("Plan");
    await form.getByLabel("Type").selectOption("enum");
    await form.getByRole("button", { name: "Define attribute" }).click();
    // No options for an enum: the API's refusal, at the field, and announced (an alert) to a screen reader.
    await form.locator(".field-error", { hasText: "an enum attribute needs at least one option" }).waitFor();
    expect(await form.getByRole("alert").textContent()).toContain(
      "options: an enum attribute needs at least one option",
    );
    await form.getByLabel("Options").fill("free, pro");
    await form.getByRole("checkbox", { name: /Required/ }).check();
    await form.getByRole("button", { name: "Define attribute" }).click();
    const row = page.getByRole("row", { name: /Plan/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("free, pro");
    expect(await row.textContent()).toContain("required");
    await capture(page, "attributes");

    const create = (body: unknown) =>
      fetch(new URL("/v1/leads", harness().url), {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const refused = await create({ name: "Ada", custom_attributes: { plan: "gold" } });
    expect(refused.status).toBe(400);
    expect((await create({ name: "Ada", custom_attributes: { plan: "pro" } })).status).toBe(201);

    await page.getByRole("button", { name: "Archive lead attribute plan" }).click();
    await page.getByText("No attributes yet").waitFor();
    expect((await create({ name: "Bob" })).status).toBe(201);

    // Test mode has its own definitions: none yet.
    await page.getByRole("switch", { name: "Test mode" }).check();
    await page.getByText("No attributes yet").waitFor();
  });
});
