/**
 * A key over its budget is refused from the process's memory until its window ends (no store round trip), the limits
 * stay exact, and a key an operator clears is admitted again by a process that had blocked it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/src/config.ts";
import { createLimiters } from "../../server/src/rate-limit/limiters.ts";
import { LIMIT_CHAINS } from "../../server/src/rate-limit/policy.ts";
import { uniqueEmail } from "../helpers/accounts.ts";
import { http } from "../helpers/http.ts";
import { useTestService } from "../helpers/service.ts";

const run = promisify(execFile);

describe("the account limiters under a flood", () => {
  const service = useTestService({ TRUST_PROXY: "loopback" });

  it("refuse a key past its budget without asking the store", async () => {
    const pool = new pg.Pool({ connectionString: service().database.url, max: 2 });
    const config = loadConfig({ ...process.env, DATABASE_URL: service().database.url, RATE_LIMIT_KEY_PREFIX: "flood" });
    const limiters = createLimiters({ redis: undefined, pool, config, logger: pino({ level: "silent" }) });
    const key = () => `198.51.100.${Math.floor(Math.random() * 200)}-${Date.now()}`;
    const address = key();
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) outcomes.push((await limiters.consume(["forgot-ip"], () => address)).outcome);
    expect(outcomes).toEqual(["allow", "allow", "allow", "allow", "allow", "reject"]);
    // The store is gone: a refused key is still refused (from memory), another key cannot be decided.
    await pool.end();
    const refused = await limiters.consume(["forgot-ip"], () => address);
    expect(refused.outcome).toBe("reject");
    expect(Number(refused.headers["Retry-After"])).toBeGreaterThan(3500);
    expect((await limiters.consume(LIMIT_CHAINS.forgot, () => key())).outcome).toBe("unavailable");
  });

  it("admit a key again in the serving process once the admin CLI clears it", async () => {
    const from = "203.0.113.77";
    const forgot = () =>
      http(`${service().url}/api/auth/forgot`, {
        method: "POST",
        body: { email: uniqueEmail() },
        from: "127.0.0.1",
        headers: { "x-forwarded-for": from },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await forgot()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const env = { ...process.env, DATABASE_URL: service().database.url, LOG_LEVEL: "error" };
    const cleared = await run(
      process.execPath,
      ["server/dist/cli/admin.js", "limits:clear", "--limiter", "forgot-ip", "--key", from],
      { env: { ...env, RATE_LIMIT_KEY_PREFIX: String(service().env.RATE_LIMIT_KEY_PREFIX) } },
    );
    expect(JSON.parse(cleared.stdout)).toEqual({ cleared: true });
    // The notification reaches the service's LISTEN connection within moments of the commit.
    await expect.poll(async () => (await forgot()).status, { timeout: 5_000, interval: 100 }).toBe(200);
  });
});
