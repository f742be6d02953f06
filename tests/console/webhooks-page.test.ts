import { verifyWebhook } from "@service/webhook-verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../console/src/generated/enums.ts";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import { makeCertificates, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { accountViaApi, describedBy, isFocused, signInViaConsole, uniqueEmail, useConsole } from "./harness.ts";

// The receiver's CA exists before the server starts, which trusts it through NODE_EXTRA_CA_CERTS.
const certificates = await makeCertificates();

describe.runIf(runBrowserTests)("console: webhooks", () => {
  const harness = useConsole({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", NODE_EXTRA_CA_CERTS: certificates.caFile });
  const email = uniqueEmail("hooks");
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver(certificates);
    receiver.respond = () => ({ status: 200 });
    await accountViaApi(harness(), email);
  });
  afterAll(() => receiver?.close());

  it("shows the server's reason for an http:// URL and for a URL with credentials", async () => {
    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByText("No endpoints yet").waitFor();
    await capture(page, "webhooks-empty");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add endpoint" });
    const create = dialog.getByRole("button", { name: "Create endpoint" });
    await dialog.getByLabel("Endpoint URL").fill("http://hooks.example.com/in");
    // Every kind of event the contract has is offered.
    for (const kind of EVENT_TYPES) await dialog.getByRole("checkbox", { name: kind, exact: true }).waitFor();
    await dialog.getByRole("checkbox", { name: "lead.captured", exact: true }).check();
    await create.click();
    await expect
      .poll(() => dialog.getByRole("alert").innerText())
      .toBe("The endpoint URL was refused: it must start with https://.");
    await capture(page, "webhook-add-refused");

    await dialog.getByLabel("Endpoint URL").fill("https://user:secret@hooks.example.com/in");
    await create.click();
    await expect.poll(() => dialog.getByRole("alert").innerText()).toContain("must not carry credentials");
  });

  it("says at the fields what an endpoint still needs when Create endpoint is pressed too early", async () => {
    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add endpoint" });
    const create = dialog.getByRole("button", { name: "Create endpoint" });
    const url = dialog.getByRole("textbox", { name: "Endpoint URL" });
    const events = dialog.getByRole("group", { name: "Events to send" });

    expect(await create.isEnabled()).toBe(true);
    await create.click();
    await expect.poll(() => describedBy(url)).toContain("Enter the URL of your endpoint.");
    expect(await url.getAttribute("aria-invalid")).toBe("true");
    expect(await isFocused(url)).toBe(true);
    expect(await describedBy(events)).toBe("Choose at least one event.");
    await capture(page, "webhook-add-missing");

    await url.fill(`${receiver.url}/missing`);
    await create.click();
    const leadCaptured = dialog.getByRole("checkbox", { name: "lead.captured", exact: true });
    await expect.poll(() => isFocused(leadCaptured)).toBe(true);
    expect(await describedBy(url)).not.toContain("Enter the URL");
    await leadCaptured.check();
    expect(await describedBy(events)).toBe("");
  });

  it("adds an endpoint, sends a test event that verifies, lists the delivery and redelivers it", async () => {
    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add endpoint" });
    await dialog.getByLabel("Endpoint URL").fill(`${receiver.url}/console`);
    await dialog.getByRole("checkbox", { name: "lead.captured", exact: true }).check();
    await capture(page, "webhook-add");
    await dialog.getByRole("button", { name: "Create endpoint" }).click();

    const added = page.getByRole("dialog", { name: "Endpoint added" });
    const secret = await added.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await capture(page, "webhook-secret");
    await added.getByRole("link", { name: "Open endpoint" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
    await page.getByText("No deliveries yet").waitFor();
    await capture(page, "webhook");

    await page.getByLabel("Event type").selectOption("lead.captured");
    await page.getByRole("button", { name: "Send test event" }).click();
    const [first] = await receiver.waitFor(1, "/console");
    const event = await verifyWebhook({ payload: first?.body ?? "", headers: first?.headers ?? {}, secret });
    expect(event.type).toBe("lead.captured");

    const row = page.getByRole("row", { name: /lead\.captured/ });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/succeeded[\s\S]*1[\s\S]*200/);
    await capture(page, "webhook-deliveries");
    await row.getByRole("link", { name: "View attempts" }).click();
    await page.getByRole("heading", { level: 1, name: "Delivery" }).waitFor();
    await page.getByRole("heading", { name: "Attempt 1: 200" }).waitFor();
    await page.getByText("ok", { exact: true }).waitFor();
    await capture(page, "delivery");

    await page.getByRole("button", { name: "Redeliver" }).click();
    const [, second] = await receiver.waitFor(2, "/console");
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    await verifyWebhook({ payload: second?.body ?? "", headers: second?.headers ?? {}, secret });
    await page.getByText("Sent again as a new delivery").waitFor();
  });

  it("disables, re-enables and rotates the secret of an endpoint", async () => {
    const page = await harness().newPage();
    await signInViaConsole(page, email);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByRole("link", { name: `${receiver.url}/console` }).click();
    await page.getByRole("button", { name: "Disable" }).click();
    await page.getByText("Disabled", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Enable" }).click();
    await page.getByText("Enabled", { exact: true }).waitFor();
    // Enabled again, it offers to recover what it missed (webhook-recovery.test.ts); not this time.
    const offer = page.getByRole("dialog", { name: "Recover failed deliveries" });
    await offer.getByRole("button", { name: "Cancel" }).click();
    await offer.waitFor({ state: "hidden" });

    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("button", { name: "Rotate the secret" }).click();
    const secret = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await capture(page, "webhook-rotated-secret");
  });
});
