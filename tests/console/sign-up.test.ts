import { describe, expect, it } from "vitest";
import { capture, runBrowserTests } from "../helpers/browser.ts";
import {
  accountViaApi,
  linkFromOutbox,
  linkFromOutboxCli,
  nextClientAddress,
  PASSWORD,
  signInViaConsole,
  uniqueEmail,
  useConsole,
} from "./harness.ts";

describe.runIf(runBrowserTests)("console: accounts in the browser", () => {
  const harness = useConsole();

  it("signs up, follows the link from the outbox, and continues signed in", async () => {
    const page = await harness().newPage();
    const email = uniqueEmail("signup");
    await page.goto("/");
    await page.getByRole("heading", { level: 1, name: "Create your account" }).waitFor();
    expect(await page.getByLabel("Invite code").count()).toBe(0);
    await capture(page, "sign-up");

    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { level: 1, name: "Check your inbox" }).waitFor();
    await capture(page, "check-inbox");

    const link = await linkFromOutboxCli(harness(), email);
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/verify-email#token=/);
    // The link opens from the mail client in a new tab of the same browser.
    const tab = await page.context().newPage();
    await tab.goto(link);
    await tab.getByText("Your address is confirmed. Sign in to continue.").waitFor();
    expect(tab.url()).not.toContain("token=");
    // Sign in starts with the address just confirmed, carried in this tab's history state, not in the address bar.
    expect(await tab.getByLabel("E-mail").inputValue()).toBe(email);
    expect(decodeURIComponent(tab.url())).not.toContain(email);
    expect(await tab.evaluate(() => localStorage.length)).toBe(0);
    await capture(tab, "sign-in");

    await tab.getByLabel("Password").fill(PASSWORD);
    await tab.getByRole("button", { name: "Sign in" }).click();
    await tab.getByRole("heading", { level: 1, name: "Developers" }).waitFor();
    await expect.poll(() => tab.getByText(email).isVisible()).toBe(true);
    await capture(tab, "developers");

    await tab.getByRole("button", { name: "Sign out" }).click();
    await tab.getByText("You are signed out.").waitFor();
    expect(await tab.getByLabel("E-mail").inputValue()).toBe("");
  });

  it("answers the same for a known and an unknown address, then resets the password from the e-mail's link", async () => {
    const email = uniqueEmail("forgot");
    await accountViaApi(harness(), email);
    const page = await harness().newPage();
    const answers: string[] = [];
    for (const address of [uniqueEmail("nobody"), email]) {
      await page.goto("/login");
      await page.getByRole("link", { name: "Forgot password?" }).click();
      await page.getByLabel("E-mail").fill(address);
      await page.getByRole("button", { name: "Send reset link" }).click();
      const answer = page.getByRole("status").filter({ hasText: "a link to reset its password" });
      await answer.waitFor();
      answers.push((await answer.innerText()).replace(address, "ADDRESS"));
    }
    expect(answers[0]).toBe(answers[1]);
    await capture(page, "forgot-password");

    await page.goto(await linkFromOutbox(harness(), email, "/reset-password"));
    await page.getByRole("heading", { level: 1, name: "Choose a new password" }).waitFor();
    await capture(page, "reset-password");
    await page.getByLabel("New password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("Your password is changed").waitFor();
    await signInViaConsole(page, email, "a brand new passphrase");
  });

  it("shows a 429 as the wait Retry-After asks for", async () => {
    const page = await harness().newPage();
    const address = nextClientAddress();
    await page.context().setExtraHTTPHeaders({ "x-forwarded-for": address });
    // Spend this address's sign-up budget (5 an hour per IP) through the API.
    for (let i = 0; i < 5; i++) {
      const response = await fetch(new URL("/api/auth/register", harness().url), {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ email: uniqueEmail("budget"), password: PASSWORD }),
      });
      expect(response.status).toBe(202);
    }
    await page.goto("/sign-up");
    await page.getByLabel("E-mail").fill(uniqueEmail("late"));
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toMatch(/^Too many attempts\. Try again in (59|60) minutes\.$/);
    await capture(page, "sign-up-429");
  });

  it("says why a disposable address is refused", async () => {
    const page = await harness().newPage();
    await page.goto("/sign-up");
    await page.getByLabel("E-mail").fill("someone@mailinator.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect.poll(() => page.getByRole("alert").innerText()).toContain("disposable e-mail provider");
  });

  it("resends the verification e-mail with the same answer for any address", async () => {
    const page = await harness().newPage();
    await page.goto("/login");
    await page.getByRole("link", { name: "Resend verification" }).click();
    await page.getByLabel("E-mail").fill(uniqueEmail("resend"));
    await page.getByRole("button", { name: "Resend verification e-mail" }).click();
    await page.getByText("a new link is on its way").waitFor();
    await capture(page, "resend-verification");
  });
});
