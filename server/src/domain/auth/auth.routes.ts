/** HTTP handlers of `/api/auth`. */
import type { components } from "@service/spec/schema";
import type { Request, Response } from "express";
import type pg from "pg";
import { AppError } from "../../errors.ts";
import { SESSION_COOKIE } from "../../http/authenticate.ts";
import type { JsonBody } from "../../http/handler-types.ts";
import type { OperationHandlers } from "../../http/operations.ts";
import { clientIpKey } from "../../lib/client-ip.ts";
import { sha256 } from "../../lib/secrets.ts";
import { type AuthService, csrfTokenFor, SESSION_TTL_SECONDS } from "./auth.service.ts";
import { findSession, revokeSession, type SessionRow } from "./auth.store.ts";

type Session = components["schemas"]["Session"];

export function toSession(row: SessionRow, token: string): Session {
  return {
    object: "session",
    user: {
      id: row.user_id,
      object: "user",
      email: row.email,
      name: row.name,
      email_verified: true,
      created_at: row.user_created_at.toISOString(),
    },
    workspace: {
      id: row.workspace_id,
      object: "workspace",
      name: row.workspace_name,
      created_at: row.workspace_created_at.toISOString(),
    },
    csrf_token: csrfTokenFor(token),
    expires_at: row.expires_at.toISOString(),
  };
}

function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

type RegistrationMode = components["schemas"]["RegistrationMode"];

export function authHandlers(deps: {
  service: AuthService;
  pool: pg.Pool;
  secureCookies: boolean;
  registrationMode: RegistrationMode;
}): OperationHandlers {
  const { service } = deps;
  const clientKey = (req: Request) => clientIpKey(req.ip);
  const answer = (res: Response, status: number, headers: Record<string, string>, body: object) => {
    res.set(headers).status(status).json(body);
  };

  return {
    async Auth_registration(_req, res) {
      res.status(200).json({ object: "registration_settings", mode: deps.registrationMode });
    },
    async Auth_register(req, res) {
      const result = await service.register(req.body as JsonBody<"Auth_register">, clientKey(req));
      answer(res, 202, result.headers, { accepted: true });
    },
    async Auth_forgot(req, res) {
      const result = await service.forgot(req.body as JsonBody<"Auth_forgot">, clientKey(req));
      answer(res, 200, result.headers, { accepted: true, throttled: result.throttled });
    },
    async Auth_resendVerification(req, res) {
      const result = await service.resend(req.body as JsonBody<"Auth_resendVerification">, clientKey(req));
      answer(res, 200, result.headers, { accepted: true, throttled: result.throttled });
    },
    async Auth_verify(req, res) {
      await service.verify((req.body as JsonBody<"Auth_verify">).token);
      res.status(200).json({ verified: true });
    },
    async Auth_reset(req, res) {
      await service.reset(req.body as JsonBody<"Auth_reset">);
      res.status(200).json({ reset: true });
    },
    async Auth_login(req, res) {
      const { token } = await service.login(req.body as JsonBody<"Auth_login">, clientKey(req));
      const row = await findSession(deps.pool, sha256(token));
      if (!row) throw new AppError("INTERNAL_ERROR", { detail: "The new session vanished." });
      res.set("Set-Cookie", sessionCookie(token, deps.secureCookies, SESSION_TTL_SECONDS));
      res.status(200).json(toSession(row, token));
    },
    async Auth_session(_req, res) {
      const session = res.locals.session;
      if (!session) throw new AppError("UNAUTHENTICATED");
      res.status(200).json(toSession(session, session.token));
    },
    async Auth_logout(_req, res) {
      const session = res.locals.session;
      if (session) await revokeSession(deps.pool, sha256(session.token));
      res
        .set("Set-Cookie", sessionCookie("", deps.secureCookies, 0))
        .status(204)
        .end();
    },
  };
}
