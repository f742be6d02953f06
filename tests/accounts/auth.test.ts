import { describe, expect, it } from "vitest";
import { createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { json, registerAndVerify, signIn, tokenIn, uniqueEmail, waitForMail } from "../helpers/accounts.ts";
import { http, loopback } from "../helpers/http.ts";
import { expectProblem } from "../helpers/problem.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ TRUST_PROXY: "loopback" });
const PASSWORD = "correct horse battery";

describe("registration, verification and sessions", () => {
  it("answers GET /api/auth/registration with the registration mode", async () => {
    const response = await service().fetch("/api/auth/registration");
    expect(await response.json()).toEqual({ object: "registration_settings", mode: "open" });
  });

  it("registers, verifies with the e-mailed token once, signs in and out", async () => {
    const email = uniqueEmail();
    await registerAndVerify(service(), email);
    const again = await service().fetch(
      "/api/auth/verify",
      json({ token: tokenIn((await waitForMail(service(), email, "verify")).text) }),
    );
    await expectProblem(again, 400, "TOKEN_INVALID");

    const { cookie, csrf } = await signIn(service(), ` ${email.toUpperCase()} `);
    expect(cookie).toMatch(/^sid=/);
    const session = await service().fetch("/api/auth/session", { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(await session.json()).toMatchObject({
      object: "session",
      user: { email, email_verified: true },
      csrf_token: csrf,
    });

    await expectProblem(
      await service().fetch("/api/auth/logout", { method: "POST", headers: { cookie } }),
      403,
      "CSRF_TOKEN_INVALID",
    );
    const logout = await service().fetch("/api/auth/logout", {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrf },
    });
    expect(logout.status).toBe(204);
    expect(logout.headers.get("set-cookie")).toMatch(/^sid=; .*Max-Age=0/);
    await expectProblem(await service().fetch("/api/auth/session", { headers: { cookie } }), 401, "UNAUTHENTICATED");
  });

  it("sets the session cookie HttpOnly and SameSite", async () => {
    const email = uniqueEmail();
    await registerAndVerify(service(), email);
    const response = await service().fetch("/api/auth/login", json({ email, password: PASSWORD }));
    expect(response.headers.get("set-cookie")).toMatch(
      /^sid=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+/,
    );
  });

  it("answers a wrong password and an unverified registration byte for byte alike, and mails the owner a new link", async () => {
    // The attack: register a victim's address with a password of one's own, then sign in with it. An existing
    // account must answer exactly as a fresh address does.
    const unverified = uniqueEmail("fresh");
    expect((await service().fetch("/api/auth/register", json({ email: unverified, password: PASSWORD }))).status).toBe(
      202,
    );
    const firstLink = await waitForMail(service(), unverified, "verify");
    const existing = uniqueEmail("existing");
    await registerAndVerify(service(), existing, "the owner's own passphrase");

    const answer = async (email: string) => {
      const response = await service().fetch("/api/auth/login", json({ email, password: PASSWORD }));
      const body = (await response.text()).replace(/req_[0-9A-Z]{26}/g, "req_");
      const headers: string[] = [];
      response.headers.forEach((value, name) => {
        if (!["date", "request-id"].includes(name)) headers.push(`${name}: ${value}`);
      });
      return { status: response.status, body, headers };
    };
    const [fresh, taken, unknown] = [await answer(unverified), await answer(existing), await answer(uniqueEmail())];
    expect(fresh.status).toBe(401);
    expect(JSON.parse(fresh.body)).toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect(taken).toEqual(fresh);
    expect(unknown).toEqual(fresh);

    const newLink = await waitForMail(service(), unverified, "verify", firstLink.id);
    expect(tokenIn(newLink.text)).not.toBe(tokenIn(firstLink.text));
    expect((await service().fetch("/api/auth/verify", json({ token: tokenIn(newLink.text) }))).status).toBe(200);
    expect((await service().fetch("/api/auth/login", json({ email: unverified, password: PASSWORD }))).status).toBe(
      200,
    );
  });

  it("lets the owner's later registration win over someone else's earlier one", async () => {
    const email = uniqueEmail("victim");
    await service().fetch("/api/auth/register", json({ email, password: "attacker's password" }));
    const attackerMail = await waitForMail(service(), email, "verify");
    await service().fetch("/api/auth/register", json({ email, password: "owner's own password" }));
    const ownerMail = await waitForMail(service(), email, "verify", attackerMail.id);
    await expectProblem(
      await service().fetch("/api/auth/verify", json({ token: tokenIn(attackerMail.text) })),
      400,
      "TOKEN_INVALID",
    );
    expect((await service().fetch("/api/auth/verify", json({ token: tokenIn(ownerMail.text) }))).status).toBe(200);
    expect((await service().fetch("/api/auth/login", json({ email, password: "owner's own password" }))).status).toBe(
      200,
    );
    expect((await service().fetch("/api/auth/login", json({ email, password: "attacker's password" }))).status).toBe(
      401,
    );
  });

  it("resets the password with the e-mailed token once, and ends every session", async () => {
    const email = uniqueEmail();
    await registerAndVerify(service(), email);
    const { cookie } = await signIn(service(), email);
    expect((await service().fetch("/api/auth/forgot", json({ email }))).status).toBe(200);
    const token = tokenIn((await waitForMail(service(), email, "reset")).text);
    const reset = await service().fetch("/api/auth/reset", json({ token, password: "a brand new passphrase" }));
    expect(reset.status).toBe(200);
    expect(await reset.json()).toEqual({ reset: true });
    await expectProblem(
      await service().fetch("/api/auth/reset", json({ token, password: "yet another passphrase" })),
      400,
      "TOKEN_INVALID",
    );
    await expectProblem(await service().fetch("/api/auth/session", { headers: { cookie } }), 401, "UNAUTHENTICATED");
    expect((await service().fetch("/api/auth/login", json({ email, password: PASSWORD }))).status).toBe(401);
    expect((await service().fetch("/api/auth/login", json({ email, password: "a brand new passphrase" }))).status).toBe(
      200,
    );
  });

  it("voids every older reset link once a reset completes", async () => {
    const email = uniqueEmail("two-links");
    await registerAndVerify(service(), email);
    expect((await service().fetch("/api/auth/forgot", json({ email }))).status).toBe(200);
    const older = await waitForMail(service(), email, "reset");
    expect((await service().fetch("/api/auth/forgot", json({ email }))).status).toBe(200);
    const newer = await waitForMail(service(), email, "reset", older.id);
    const reset = await service().fetch(
      "/api/auth/reset",
      json({ token: tokenIn(newer.text), password: "a brand new passphrase" }),
    );
    expect(reset.status).toBe(200);
    await expectProblem(
      await service().fetch("/api/auth/reset", json({ token: tokenIn(older.text), password: "the attacker's choice" })),
      400,
      "TOKEN_INVALID",
    );
    expect((await service().fetch("/api/auth/login", json({ email, password: "a brand new passphrase" }))).status).toBe(
      200,
    );
  });

  it("refuses a password that is the address or a run of a few characters", async () => {
    const email = uniqueEmail();
    const body = await expectProblem(
      await service().fetch("/api/auth/register", json({ email, password: "aaaaaaaaaaaa" })),
      400,
      "PASSWORD_TOO_WEAK",
    );
    expect(body.errors).toEqual([{ path: "body.password", message: expect.any(String) }]);
  });
});

describe("no account enumeration", () => {
  /** Status, body and headers, minus the two that differ on every response (Request-Id, Date). */
  const comparable = (answer: Awaited<ReturnType<typeof http>>) => {
    const { "request-id": _id, date: _date, ...headers } = answer.headers;
    return { status: answer.status, body: answer.text, headers };
  };

  it.each([
    ["/api/auth/register", (email: string) => ({ email, password: "another long passphrase" })],
    ["/api/auth/forgot", (email: string) => ({ email })],
    ["/api/auth/resend-verification", (email: string) => ({ email })],
  ])("answers %s byte for byte the same for an existing and an unknown account", async (path, body) => {
    // The account is made by the admin path, so that its address has no counter history of its own: counters are
    // per address for everyone, and a fresh address must look the same whether or not it has an account.
    const existing = uniqueEmail("known");
    await createWorkspace(service().service.db.pool, { name: "Known", ownerEmail: existing });
    const answers = await Promise.all(
      [existing, uniqueEmail("nobody")].map((email, i) =>
        http(`${service().url}${path}`, {
          body: body(email),
          from: loopback(5000 + i + Math.floor(Math.random() * 900) * 3),
        }),
      ),
    );
    const [first, ...rest] = answers.map(comparable);
    for (const other of rest) expect(other).toEqual(first);
  });
});

describe("closed beta: REGISTRATION_MODE=invite", () => {
  const invited = useTestService({ REGISTRATION_MODE: "invite", TRUST_PROXY: "loopback" });

  it("requires an unused invite code issued for the address", async () => {
    const { createInvite } = await import("../../server/src/cli/admin-commands.ts");
    const email = uniqueEmail("invited");
    const invite = await createInvite(invited().service.db.pool, { email, ttlDays: 1 });
    const register = (address: string, code?: string) =>
      invited().fetch(
        "/api/auth/register",
        json({ email: address, password: PASSWORD, ...(code ? { invite_code: code } : {}) }),
      );

    await expectProblem(await register(email), 400, "INVITE_REQUIRED");
    await expectProblem(await register(email, "not-a-code"), 400, "INVITE_INVALID");
    await expectProblem(await register(uniqueEmail("other"), invite.invite_code), 400, "INVITE_INVALID");
    expect((await register(email, invite.invite_code)).status).toBe(202);
    const token = tokenIn((await waitForMail(invited(), email, "verify")).text);
    expect((await invited().fetch("/api/auth/verify", json({ token }))).status).toBe(200);
    await expectProblem(await register(email, invite.invite_code), 400, "INVITE_INVALID");
  });
});
