/**
 * Authentication middleware, chosen per operation from the contract's security requirement.
 *
 * `ApiKeyBearer`: `Authorization: Bearer <API_KEY>` (RFC 6750 §2.1). A missing or malformed header is a 401
 * `UNAUTHENTICATED` with `WWW-Authenticate: Bearer` (RFC 6750 §3).
 * `SessionCookie`: the `sid` cookie of `POST /api/auth/login`.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "./errors.ts";

export type SecurityScheme = "ApiKeyBearer" | "SessionCookie";
export type Authenticators = Readonly<Record<SecurityScheme, RequestHandler>>;

export const BEARER_CHALLENGE = 'Bearer realm="api"';

/** RFC 6750 §2.1: `Bearer` is case-insensitive; the token is b64token characters. */
export function parseBearer(header: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header ?? "");
  return match?.[1];
}

export function unauthenticated(detail: string): AppError {
  return new AppError("UNAUTHENTICATED", { detail, headers: { "WWW-Authenticate": BEARER_CHALLENGE } });
}

/**
 * Refuses calls without credentials of the operation's scheme. Until API keys and sessions exist (the
 * accounts issue replaces these with the key and session lookups), a call that carries credentials reaches
 * the operation, which answers 501 `NOT_IMPLEMENTED`.
 */
export function requireCredentials(): Authenticators {
  return {
    ApiKeyBearer: function requireBearer(req: Request, _res: Response, next: NextFunction) {
      if (parseBearer(req.headers.authorization) === undefined) {
        throw unauthenticated("Send the API key as `Authorization: Bearer <API_KEY>`.");
      }
      next();
    },
    SessionCookie: function requireSession(req: Request, _res: Response, next: NextFunction) {
      if (!/(?:^|;\s*)sid=[^;]+/.test(req.headers.cookie ?? "")) {
        throw new AppError("UNAUTHENTICATED", { detail: "Sign in first: this operation needs the session cookie." });
      }
      next();
    },
  };
}
