/**
 * Debian's Chromium (the `chromium` package), driven by playwright-core: Playwright's own browser download cannot
 * reach its CDN from these machines. Each test gets a fresh context; the launch uses a fresh profile.
 *
 * Without the browser the console's journeys skip with one line saying how to install it, except under `CI=true`,
 * where a missing browser is a failure (CI must never pass without running them).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const INSTALL_HINT = "console browser tests skipped: Chromium not found (install it: apt-get install -y chromium)";

/** The Chromium binary: `CHROMIUM_PATH`, or `chromium` on the PATH. */
function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const chromiumPath = findChromium();
/** Whether the journeys run: always in CI (where a missing browser then fails them), elsewhere when installed. */
export const runBrowserTests = chromiumPath !== undefined || process.env.CI === "true";
if (!runBrowserTests) console.warn(INSTALL_HINT);

export async function launchChromium(): Promise<Browser> {
  if (!chromiumPath) throw new Error(`CI=true and no Chromium: ${INSTALL_HINT}`);
  // Playwright launches with a fresh temporary --user-data-dir of its own (and --headless, --no-sandbox).
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    chromiumSandbox: false,
    args: CHROMIUM_FLAGS,
  });
}

export const SCREENSHOT_DIR = join(process.cwd(), ".tmp", "console-screenshots");
const WIDTHS = [1280, 375];
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core on the page as it is: no serious or critical violation. Evaluated over CDP, so the page's CSP allows it. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    "window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as AxeViolation[];
  const serious = violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((n) => n.target))}`,
    );
  expect(serious, `axe on ${name}`).toEqual([]);
}

/**
 * Checks a page with axe and writes its screenshots at 1280 and 375 px wide to `.tmp/console-screenshots/`, beside
 * the test report, where they stay (a failing test's last page is the one to look at).
 */
export async function capture(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 800 });
    await expectAccessible(page, `${name} at ${width} px`);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(original);
}
