/**
 * Every row of the contract's limit table, and every rule under it, over HTTP against a running server, with each
 * store: PostgreSQL always, Redis when REDIS_URL is set.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../helpers/accounts.ts";
import { http, loopback } from "../helpers/http.ts";
import { type TestService, useTestService } from "../helpers/service.ts";

const run = promisify(execFile);
const STORES: { store: string; env: Record<string, string> }[] = [
  { store: "postgres", env: { REDIS_URL: "" } },
  ...(process.env.REDIS_URL ? [{ store: "redis", env: {} }] : []),
];
const PASSWORD = "correct horse battery";

let nextClient = 0;
/** A client address no other test of this file uses. */
const newClient = () => loopback(100 + nextClient++);

function post(service: TestService, path: string, body: unknown, from: string, headers: Record<string, string> = {}) {
  return http(`${service.url}${path}`, { method: "POST", body, from, headers });
}
const register = (service: TestService, email: string, from: string) =>
  post(service, "/api/auth/register", { email, password: PASSWORD }, from);
const forgot = (service: TestService, email: string, from: string) =>
  post(service, "/api/auth/forgot", { email }, from);
const resend = (service: TestService, email: string, from: string) =>
  post(service, "/api/auth/resend-verification", { email }, from);

/** Retry-After is whole seconds ≥ 1 and within a second of the counter's real time left. */
function expectRetryAfter(headers: Record<string, string>, windowSeconds: number) {
  const value = headers["retry-after"];
  expect(value).toMatch(/^\d+$/);
  expect(Number(value)).toBeGreaterThanOrEqual(Math.max(1, windowSeconds - 30));
  expect(Number(value)).toBeLessThanOrEqual(windowSeconds);
}

/** The admin CLI, as an operator runs it, against the same database and store as the service. */
async function adminClear(service: TestService, limiter: string, key: string): Promise<{ cleared: boolean }> {
  const env = {
    ...process.env,
    DATABASE_URL: service.database.url,
    REDIS_URL: service.env.REDIS_URL ?? "",
    RATE_LIMIT_KEY_PREFIX: service.env.RATE_LIMIT_KEY_PREFIX ?? "",
    LOG_LEVEL: "error",
  };
  const { stdout } = await run(
    process.execPath,
    ["server/dist/cli/admin.js", "limits:clear", "--limiter", limiter, "--key", key],
    {
      env,
    },
  );
  return JSON.parse(stdout) as { cleared: boolean };
}

describe.each(STORES)("account limits with counters in $store", ({ env }) => {
  const service = useTestService(env);

  describe("POST /api/auth/register", () => {
    it("answers 429 with Retry-After on the 6th attempt in an hour from one IP", async () => {
      const ip = newClient();
      for (let i = 0; i < 5; i++) expect((await register(service(), uniqueEmail(), ip)).status).toBe(202);
      const sixth = await register(service(), uniqueEmail(), ip);
      expect(sixth.status).toBe(429);
      expect(sixth.json()).toMatchObject({ code: "RATE_LIMITED", status: 429 });
      expectRetryAfter(sixth.headers, 3600);
      expect(sixth.headers["ratelimit-policy"]).toBe('"register-ip";q=5;w=3600, "register-email";q=5;w=3600');
      expect(sixth.headers.ratelimit).toMatch(/^"register-ip";r=0;t=\d+$/);
      expect((await register(service(), uniqueEmail(), newClient())).status, "another IP is not limited").toBe(202);
    });

    it("answers 429 with Retry-After on the 6th attempt in an hour for one e-mail, from any IPs", async () => {
      const email = uniqueEmail();
      for (let i = 0; i < 5; i++) expect((await register(service(), email, newClient())).status).toBe(202);
      const sixth = await register(service(), email, newClient());
      expect(sixth.status).toBe(429);
      expectRetryAfter(sixth.headers, 3600);
      expect(sixth.headers.ratelimit).toMatch(/^"register-email";r=0;/);
      expect((await register(service(), uniqueEmail(), newClient())).status, "another e-mail is not limited").toBe(202);
    });

    it("counts USER@Example.com and user@example.com (trimmed) as one address", async () => {
      const local = uniqueEmail().split("@")[0] as string;
      const variants = [`${local.toUpperCase()}@Example.com`, ` ${local}@example.com `, `${local}@EXAMPLE.COM`];
      for (let i = 0; i < 5; i++) {
        expect((await register(service(), variants[i % 3] as string, newClient())).status).toBe(202);
      }
      expect((await register(service(), `${local}@example.com`, newClient())).status).toBe(429);
    });

    it("refuses a disposable address with 400 before any counter, so refusals cost no budget", async () => {
      const ip = newClient();
      for (const email of ["a@mailinator.com", "b@sub.mailinator.com", "c@10minutemail.com"]) {
        for (let i = 0; i < 3; i++) {
          const response = await register(service(), email, ip);
          expect(response.status).toBe(400);
          expect(response.json()).toMatchObject({ code: "DISPOSABLE_EMAIL" });
        }
      }
      // Nine refusals later, the IP still has its whole budget, and so has each address's counter.
      for (let i = 0; i < 5; i++) expect((await register(service(), uniqueEmail(), ip)).status).toBe(202);
      expect((await register(service(), uniqueEmail(), ip)).status).toBe(429);
    });

    it("consumes nothing of the e-mail limiter when the IP limiter stops a request", async () => {
      const ip = newClient();
      for (let i = 0; i < 5; i++) await register(service(), uniqueEmail(), ip);
      const email = uniqueEmail();
      for (let i = 0; i < 4; i++) expect((await register(service(), email, ip)).status).toBe(429);
      for (let i = 0; i < 5; i++) expect((await register(service(), email, newClient())).status).toBe(202);
      expect((await register(service(), email, newClient())).status).toBe(429);
    });
  });

  describe("POST /api/auth/forgot", () => {
    it("answers 429 with Retry-After on the 6th request in an hour from one IP", async () => {
      const ip = newClient();
      for (let i = 0; i < 5; i++) expect((await forgot(service(), uniqueEmail(), ip)).status).toBe(200);
      const sixth = await forgot(service(), uniqueEmail(), ip);
      expect(sixth.status).toBe(429);
      expectRetryAfter(sixth.headers, 3600);
    });

    it("answers 200 throttled with Retry-After after 5 requests for one e-mail", async () => {
      const email = uniqueEmail();
      for (let i = 0; i < 5; i++) {
        const response = await forgot(service(), email, newClient());
        expect(response.status).toBe(200);
        expect(response.json()).toEqual({ accepted: true, throttled: false });
        expect(response.headers["retry-after"]).toBeUndefined();
      }
      const sixth = await forgot(service(), email, newClient());
      expect(sixth.status).toBe(200);
      expect(sixth.json()).toEqual({ accepted: true, throttled: true });
      expectRetryAfter(sixth.headers, 3600);
    });
  });

  describe("POST /api/auth/resend-verification", () => {
    it("answers 429 with Retry-After on the 51st request in a day from one IP", async () => {
      const ip = newClient();
      for (let i = 0; i < 50; i++) expect((await resend(service(), uniqueEmail(), ip)).status).toBe(200);
      const next = await resend(service(), uniqueEmail(), ip);
      expect(next.status).toBe(429);
      expectRetryAfter(next.headers, 86400);
    });

    it("answers 200 throttled with Retry-After within the 60-second cooldown of one e-mail", async () => {
      const email = uniqueEmail();
      expect((await resend(service(), email, newClient())).json()).toEqual({ accepted: true, throttled: false });
      const again = await resend(service(), email, newClient());
      expect(again.status).toBe(200);
      expect(again.json()).toEqual({ accepted: true, throttled: true });
      expectRetryAfter(again.headers, 60);
      expect(again.headers.ratelimit).toMatch(/^"resend-cooldown";r=0;/);
    });

    it("answers 200 throttled after 10 in a day for one e-mail, the cooldown aside", async () => {
      const email = uniqueEmail();
      for (let i = 0; i < 10; i++) {
        expect((await resend(service(), email, newClient())).json()).toMatchObject({ throttled: false });
        // The operator's clear of the cooldown lets the daily limit be reached without waiting 10 minutes.
        await service().service.limiters?.clear("resend-cooldown", email);
      }
      const eleventh = await resend(service(), email, newClient());
      expect(eleventh.json()).toEqual({ accepted: true, throttled: true });
      expectRetryAfter(eleventh.headers, 86400);
      expect(eleventh.headers.ratelimit).toMatch(/^"resend-email";r=0;/);
    });
  });

  describe("admin limits:clear", () => {
    it("restores exactly one limiter for one key", async () => {
      const [alice, bob] = [uniqueEmail("alice"), uniqueEmail("bob")];
      const ip = newClient();
      for (let i = 0; i < 5; i++) {
        await forgot(service(), alice, newClient());
        await forgot(service(), bob, newClient());
      }
      for (let i = 0; i < 4; i++) await forgot(service(), uniqueEmail(), ip);
      expect((await forgot(service(), alice, newClient())).json()).toMatchObject({ throttled: true });

      expect(await adminClear(service(), "forgot-email", ` ${alice.toUpperCase()} `)).toEqual({ cleared: true });

      expect((await forgot(service(), alice, newClient())).json(), "alice again").toMatchObject({ throttled: false });
      expect((await forgot(service(), bob, newClient())).json(), "bob untouched").toMatchObject({ throttled: true });
      const fromIp = await forgot(service(), uniqueEmail(), ip);
      expect(fromIp.status, "the IP counter kept its count").toBe(200);
      expect(fromIp.headers.ratelimit).toMatch(/^"forgot-ip";r=0;/);
      expect((await forgot(service(), uniqueEmail(), ip)).status).toBe(429);
      expect(await adminClear(service(), "forgot-email", uniqueEmail()), "nothing to clear").toEqual({
        cleared: false,
      });
    });

    it("clears an IP counter", async () => {
      const ip = newClient();
      for (let i = 0; i < 6; i++) await register(service(), uniqueEmail(), ip);
      expect((await register(service(), uniqueEmail(), ip)).status).toBe(429);
      expect(await adminClear(service(), "register-ip", ip)).toEqual({ cleared: true });
      expect((await register(service(), uniqueEmail(), ip)).status).toBe(202);
    });
  });
});

describe("windows expire at their end (short windows injected through configuration)", () => {
  // 5 s: long enough that the window cannot end while a loaded machine hashes the five passwords before the sixth
  // attempt (which would then be admitted in a new window), short enough to wait out. The first five go at once, so
  // the window's time is not spent on one request after another; the wait afterwards is what Retry-After says.
  const WINDOW_SECONDS = 5;
  const service = useTestService({
    RATE_LIMIT_WINDOWS: `register-ip=${WINDOW_SECONDS},forgot-email=${WINDOW_SECONDS}`,
    REDIS_URL: process.env.REDIS_URL ?? "",
  });

  it("admits again once the window is over, and says so in Retry-After", async () => {
    const ip = newClient();
    const five = await Promise.all(Array.from({ length: 5 }, () => register(service(), uniqueEmail(), ip)));
    expect(five.map((response) => response.status)).toEqual([202, 202, 202, 202, 202]);
    const limited = await register(service(), uniqueEmail(), ip);
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(WINDOW_SECONDS);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
    expect((await register(service(), uniqueEmail(), ip)).status).toBe(202);
  });

  it("lifts the throttle of an address when its window ends", async () => {
    const email = uniqueEmail();
    const five = await Promise.all(Array.from({ length: 5 }, () => forgot(service(), email, newClient())));
    for (const response of five) expect(response.json()).toMatchObject({ throttled: false });
    const throttled = await forgot(service(), email, newClient());
    expect(throttled.json()).toMatchObject({ throttled: true });
    await new Promise((resolve) => setTimeout(resolve, Number(throttled.headers["retry-after"]) * 1000 + 100));
    expect((await forgot(service(), email, newClient())).json()).toMatchObject({ throttled: false });
  });
});

describe("client addresses behind a trusted proxy", () => {
  const service = useTestService({ TRUST_PROXY: "loopback" });

  it("keys IPv6 clients by their /64, and IPv4-mapped addresses as IPv4", async () => {
    const from = (address: string) => ({ "x-forwarded-for": address });
    for (let i = 1; i <= 5; i++) {
      const response = await post(
        service(),
        "/api/auth/forgot",
        { email: uniqueEmail() },
        "127.0.0.1",
        from(`2001:db8:1:2::${i}`),
      );
      expect(response.status).toBe(200);
    }
    const sameSlash64 = await post(
      service(),
      "/api/auth/forgot",
      { email: uniqueEmail() },
      "127.0.0.1",
      from("2001:db8:1:2:ffff::9"),
    );
    expect(sameSlash64.status).toBe(429);
    const otherSlash64 = await post(
      service(),
      "/api/auth/forgot",
      { email: uniqueEmail() },
      "127.0.0.1",
      from("2001:db8:1:3::1"),
    );
    expect(otherSlash64.status).toBe(200);

    for (let i = 0; i < 5; i++)
      await post(service(), "/api/auth/forgot", { email: uniqueEmail() }, "127.0.0.1", from("192.0.2.44"));
    const mapped = await post(
      service(),
      "/api/auth/forgot",
      { email: uniqueEmail() },
      "127.0.0.1",
      from("::ffff:192.0.2.44"),
    );
    expect(mapped.status).toBe(429);
  });
});
