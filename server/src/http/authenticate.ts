/**
 * Authentication, chosen per operation from the contract's security requirement, then the caller's request
 * budget.
 *
 * `ApiKeyBearer`: `Authorization: Bearer <API_KEY>` (RFC 6750 §2.1). Missing, malformed, unknown, revoked or
 * expired is a 401 `UNAUTHENTICATED` with `WWW-Authenticate: Bearer` (RFC 6750 §3); a key without the operation's
 * scope is a 403 `INSUFFICIENT_SCOPE` with `error="insufficient_scope"` (RFC 6750 §3.1). The lookup is by the key's
 * SHA-256 (no KDF: keys carry 190 random bits), through a cache that revocation clears at once (key-cache.ts).
 *
 * `SessionCookie`: the `sid` cookie. Writes must carry `X-CSRF-Token`, an HMAC of the session token that only a
 * same-origin page can read from `GET /api/auth/session`.
 */
import { timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type pg from "pg";
import type { ApiKeyCache } from "../domain/api-keys/key-cache.ts";
import { isWellFormedApiKey } from "../domain/api-keys/key-format.ts";
import type { LastUsedTracker } from "../domain/api-keys/last-used.ts";
import { csrfTokenFor } from "../domain/auth/auth.service.ts";
import { findSession, type SessionRow } from "../domain/auth/auth.store.ts";
import { AppError } from "../errors.ts";
import { sha256 } from "../lib/secrets.ts";
import type { Limiters } from "../rate-limit/limiters.ts";
import { LIMIT_CHAINS } from "../rate-limit/policy.ts";
import type { OperationSpec } from "./openapi-document.ts";

export interface ApiKeyPrincipal {
  readonly keyId: string;
  readonly workspaceId: string;
  readonly scopes: readonly string[];
}

export interface SessionPrincipal extends SessionRow {
  readonly token: string;
}

declare global {
  namespace Express {
    interface Locals {
      apiKey?: ApiKeyPrincipal;
      session?: SessionPrincipal;
    }
  }
}

export type SecurityScheme = "ApiKeyBearer" | "SessionCookie";
export type Authenticators = Readonly<Record<SecurityScheme, (operation: OperationSpec) => RequestHandler>>;

export const BEARER_CHALLENGE = 'Bearer realm="api"';
export const SESSION_COOKIE = "sid";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** RFC 6750 §2.1: the scheme is case-insensitive; the token is b64token characters. */
export function parseBearer(header: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header ?? "");
  return match?.[1];
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=") || undefined;
  }
  return undefined;
}

function unauthenticated(detail: string): AppError {
  return new AppError("UNAUTHENTICATED", { detail, headers: { "WWW-Authenticate": BEARER_CHALLENGE } });
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function createAuthenticators(deps: {
  pool: pg.Pool;
  keys: ApiKeyCache;
  limiters: Limiters;
  lastUsed: LastUsedTracker;
}): Authenticators {
  const budget = async (res: Response, chain: "apiKey" | "session", key: string) => {
    const decision = await deps.limiters.check(LIMIT_CHAINS[chain], () => key);
    res.set(decision.headers);
    if (decision.outcome !== "allow") {
      throw new AppError("RATE_LIMITED", {
        detail: `Request budget spent; retry after ${decision.retryAfter} seconds.`,
        headers: decision.headers,
      });
    }
  };

  return {
    ApiKeyBearer(operation) {
      return async function authenticateApiKey(req: Request, res: Response, next: NextFunction) {
        const token = parseBearer(req.headers.authorization);
        if (token === undefined) throw unauthenticated("Send the API key as `Authorization: Bearer <API_KEY>`.");
        // The checksum refuses mistyped and invented keys before any lookup.
        const row = isWellFormedApiKey(token) ? await deps.keys.find(sha256(token)) : undefined;
        if (!row) throw unauthenticated("The API key is not valid: unknown, revoked or expired.");
        const missing = operation.scopes.filter((scope) => !row.scopes.includes(scope));
        if (missing.length > 0) {
          throw new AppError("INSUFFICIENT_SCOPE", {
            detail: `This operation needs the scope ${missing.join(", ")}.`,
            headers: {
              "WWW-Authenticate": `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${operation.scopes.join(" ")}"`,
            },
          });
        }
        deps.lastUsed.touch(row.id, row.last_used_at);
        res.locals.apiKey = { keyId: row.id, workspaceId: row.workspace_id, scopes: row.scopes };
        await budget(res, "apiKey", row.id);
        next();
      };
    },

    SessionCookie() {
      return async function authenticateSession(req: Request, res: Response, next: NextFunction) {
        const token = readCookie(req.headers.cookie, SESSION_COOKIE);
        const session = token ? await findSession(deps.pool, sha256(token)) : undefined;
        if (!token || !session) {
          throw new AppError("UNAUTHENTICATED", { detail: "Sign in first: this operation needs the session cookie." });
        }
        if (!SAFE_METHODS.has(req.method)) {
          const sent = req.get("x-csrf-token");
          if (!sent || !sameToken(sent, csrfTokenFor(token))) throw new AppError("CSRF_TOKEN_INVALID");
        }
        res.locals.session = { ...session, token };
        if (req.path.startsWith("/api/workspace")) await budget(res, "session", session.user_id);
        next();
      };
    },
  };
}
