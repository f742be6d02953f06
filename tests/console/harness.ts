/**
 * The console's journeys run against the built server started as `npm start` starts it (`node
 * server/dist/main.js`), on a fresh database of the run's PostgreSQL, and Debian's Chromium.
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { listOutbox } from "../../server/src/mail/outbox.ts";
import { launchChromium, SCREENSHOT_DIR } from "../helpers/browser.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { freePort } from "../helpers/free-port.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";

const run = promisify(execFile);

export const PASSWORD = "correct horse battery staple";

export interface ConsoleHarness {
  url: string;
  env: NodeJS.ProcessEnv;
  pool: pg.Pool;
  browser: Browser;
  /** A browser context whose requests come from an address of their own (TRUST_PROXY=loopback honours it). */
  newPage(): Promise<Page>;
}

let addresses = 0;
/** A client address from TEST-NET-3, distinct per call, clear of other journeys' per-IP limits. */
export function nextClientAddress(): string {
  addresses += 1;
  return `203.0.113.${(addresses % 250) + 1}`;
}

/** A free port, so that the server's PUBLIC_BASE_URL (and so the e-mails' links) names the port it listens on. */
let emails = 0;
export function uniqueEmail(label: string): string {
  emails += 1;
  return `${label}.${Date.now().toString(36)}.${emails}@example.com`;
}

export function useConsole(env: Record<string, string> = {}): () => ConsoleHarness {
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  let pool: pg.Pool | undefined;
  const contexts: BrowserContext[] = [];
  let harness: ConsoleHarness | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    const settings = bareEnv({
      DATABASE_URL: database.url,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      RATE_LIMIT_KEY_PREFIX: `rl-${database.name}`,
      PORT: String(await freePort()),
      PASSWORD_HASH_COST: "12",
      TRUST_PROXY: "loopback",
      ...env,
    });
    [server, browser] = await Promise.all([runServer([], settings), launchChromium()]);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const url = server.url;
    const current = { browser, pool };
    harness = {
      url,
      env: settings,
      ...current,
      async newPage() {
        const context = await current.browser.newContext({
          baseURL: url,
          viewport: { width: 1280, height: 800 },
          extraHTTPHeaders: { "x-forwarded-for": nextClientAddress() },
        });
        contexts.push(context);
        return context.newPage();
      },
    };
  });
  afterEach(async (context) => {
    const failedShot = join(SCREENSHOT_DIR, `FAILED-${context.task.name.replace(/\W+/g, "-")}.png`);
    // The page as the failure left it, beside the others; a pass removes an older run's.
    if (context.task.result?.state === "fail") await contexts.at(-1)?.pages()[0]?.screenshot({ path: failedShot });
    else rmSync(failedShot, { force: true });
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await pool?.end();
    await server?.stop();
    await database?.drop();
  });
  return () => {
    if (!harness) throw new Error("the console harness is not started");
    return harness;
  };
}

/** The newest e-mail's link to an address, read as a developer would: `npm run admin -- outbox:list`. */
export async function linkFromOutboxCli(harness: ConsoleHarness, email: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const { stdout } = await run(process.execPath, ["server/dist/cli/admin.js", "outbox:list", "--email", email], {
      env: harness.env,
    });
    const [newest] = JSON.parse(stdout) as { link: string | null }[];
    if (newest?.link) return newest.link;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no e-mail to ${email}`);
}

/** The newest e-mail's link of a kind (`/verify-email`, `/reset-password`), once the worker wrote it. */
export async function linkFromOutbox(harness: ConsoleHarness, email: string, path: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const link = (await listOutbox(harness.pool, { email, limit: 5 })).find((mail) => mail.link?.includes(path))?.link;
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${path} e-mail to ${email}`);
}

/** An account made through the API (register, the outbox's link, verify), for journeys that start signed out. */
export async function accountViaApi(harness: ConsoleHarness, email: string, password = PASSWORD): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(new URL(path, harness.url), {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextClientAddress() },
      body: JSON.stringify(body),
    });
  expect((await post("/api/auth/register", { email, password })).status).toBe(202);
  const link = await linkFromOutbox(harness, email, "/verify-email");
  const token = new URL(link).hash.replace("#token=", "");
  expect((await post("/api/auth/verify", { token })).status).toBe(200);
}

/**
 * An API key of the account's workspace, made through the session API as the console makes one: the journeys arrange
 * and check through `/v1` with it, as an integrator would, while the browser does what is being tested.
 */
export async function apiKeyViaSession(
  harness: ConsoleHarness,
  email: string,
  scopes: string[],
  password = PASSWORD,
  /** The mode the key is made in, as the console's switch sends it (`Service-Mode`). */
  mode: "live" | "test" = "live",
): Promise<string> {
  const address = nextClientAddress();
  const call = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
    fetch(new URL(path, harness.url), {
      method: init.method ?? "GET",
      headers: { "content-type": "application/json", "x-forwarded-for": address, ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const login = await call("/api/auth/login", { method: "POST", body: { email, password } });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  const session = (await (await call("/api/auth/session", { headers: { cookie } })).json()) as { csrf_token: string };
  const created = await call("/api/workspace/api-keys", {
    method: "POST",
    headers: { cookie, "x-csrf-token": session.csrf_token, "service-mode": mode },
    body: { name: mode === "test" ? "Test journeys" : "Console journeys", scopes },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { key: string }).key;
}

/** Signs in through the console's Sign in page and waits for the workspace. */
export async function signInViaConsole(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Developers" }).waitFor();
}

/** The text a control's aria-describedby points at, as a screen reader reads it after the name. */
export function describedBy(control: Locator): Promise<string> {
  return control.evaluate((element) =>
    (element.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .map((id) => (id ? (document.getElementById(id)?.textContent ?? "") : ""))
      .join(" ")
      .trim(),
  );
}

/** Whether the control has the keyboard focus. */
export function isFocused(control: Locator): Promise<boolean> {
  return control.evaluate((element) => element === document.activeElement);
}

/**
 * Whether a control can be clicked where it is: inside the viewport and not covered (what a person at that screen
 * size sees without scrolling).
 */
export function isInView(control: Locator): Promise<boolean> {
  return control.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
    const inViewport = box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
    return inViewport && element.contains(document.elementFromPoint(x, y));
  });
}
