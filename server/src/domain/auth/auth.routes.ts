/** HTTP handlers of `/api/auth`. */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { AppError } from "../../errors.ts";
import { SESSION_COOKIE } from "../../http/authenticate.ts";
import type { ApiRequest, OperationHandlers } from "../../http/handler-types.ts";
import { clientIpKey } from "../../lib/client-ip.ts";
import { sha256 } from "../../lib/secrets.ts";
import { type AuthService, SESSION_TTL_SECONDS, toSession } from "./auth.service.ts";
import { findSession, revokeSession } from "./auth.store.ts";

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
  const clientKey = (request: ApiRequest) => clientIpKey(request.clientIp);

  return {
    Auth_registration: async () => ({
      status: 200,
      body: { object: "registration_settings", mode: deps.registrationMode },
    }),
    Auth_register: async ({ body, request }) => {
      const result = await service.register(body, clientKey(request));
      return { status: 202, headers: result.headers, body: { accepted: true } };
    },
    Auth_forgot: async ({ body, request }) => {
      const result = await service.forgot(body, clientKey(request));
      return { status: 200, headers: result.headers, body: { accepted: true, throttled: result.throttled } };
    },
    Auth_resendVerification: async ({ body, request }) => {
      const result = await service.resend(body, clientKey(request));
      return { status: 200, headers: result.headers, body: { accepted: true, throttled: result.throttled } };
    },
    Auth_verify: async ({ body }) => {
      await service.verify(body.token);
      return { status: 200, body: { verified: true } };
    },
    Auth_reset: async ({ body }) => {
      await service.reset(body);
      return { status: 200, body: { reset: true } };
    },
    Auth_login: async ({ body, request }) => {
      const { token } = await service.login(body, clientKey(request));
      const row = await findSession(deps.pool, sha256(token));
      if (!row) throw new AppError("INTERNAL_ERROR", { detail: "The new session vanished." });
      return {
        status: 200,
        headers: { "Set-Cookie": sessionCookie(token, deps.secureCookies, SESSION_TTL_SECONDS) },
        body: toSession(row, token),
      };
    },
    Auth_session: async ({ session }) => {
      if (!session) throw new AppError("UNAUTHENTICATED");
      return { status: 200, body: toSession(session, session.token) };
    },
    Auth_logout: async ({ session }) => {
      if (session) await revokeSession(deps.pool, sha256(session.token));
      return { status: 204, headers: { "Set-Cookie": sessionCookie("", deps.secureCookies, 0) } };
    },
  };
}
