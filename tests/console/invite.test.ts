import { describe, expect, it } from "vitest";
import { createInvite } from "../../server/src/cli/admin-commands.ts";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import { linkFromOutbox, PASSWORD, uniqueEmail, useConsole } from "./harness.ts";

describe.runIf(runBrowserTests)("console: sign-up by invitation (REGISTRATION_MODE=invite)", () => {
  const harness = useConsole({ REGISTRATION_MODE: "invite" });

  it("asks for the invite code, says when it is wrong, and signs up with the right one", async () => {
    const email = uniqueEmail("invited");
    const invite = await createInvite(harness().pool, { email, ttlDays: 1 });
    const page = await harness().newPage();
    await page.goto("/sign-up");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Invite code").fill("not-the-code");
    await capture(page, "sign-up-invite");
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("alert").innerText()).toContain("invite code is unknown");

    await page.getByLabel("Invite code").fill(invite.invite_code);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { level: 1, name: "Check your inbox" }).waitFor();
    await page.goto(await linkFromOutbox(harness(), email, "/verify-email"));
    await page.getByText("Your address is confirmed. Sign in to continue.").waitFor();
  });
});
