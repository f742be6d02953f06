/**
 * Authentication, chosen per operation from the contract's security requirement. The checks themselves are the
 * domain's, given to `createAuthenticators` (`verifyKey`, `verifySession`): this module only reads credentials
 * from the request and turns the outcome into answers.
 *
 * `ApiKeyBearer`: `Authorization: Bearer <API_KEY>` (RFC 6750 §2.1). Missing, malformed, unknown, revoked or
 * expired is a 401 `UNAUTHENTICATED` with `WWW-Authenticate: Bearer` (RFC 6750 §3); a key without the operation's
 * scope is a 403 `INSUFFICIENT_SCOPE` with `error="insufficient_scope"` (RFC 6750 §3.1).
 *
 * `SessionCookie`: the `sid` cookie. Writes must carry `X-CSRF-Token`, an HMAC of the session token that only a
 * same-origin page can read from `GET /api/auth/session`. An operation that takes `Service-Mode: test` acts on the
 * workspace's test mode (domain/modes.ts).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { VerifyKey } from "../domain/api-keys/verify-key.ts";
import type { Session, VerifySession } from "../domain/auth/verify-session.ts";
import { isLiveScope, scopeOf } from "../domain/modes.ts";
import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import { MODE_HEADER, type OperationSpec } from "./openapi-document.ts";

/** Who is calling, once authenticated. */
export interface Credentials {
  readonly principal: Principal;
  /** The signed-in session, on `SessionCookie` operations. */
  readonly session?: Session;
}

/** Authenticates a request, or throws its 401 or 403. */
export type Authenticate = (req: IncomingMessage) => Promise<Credentials>;

export type SecurityScheme = "ApiKeyBearer" | "SessionCookie";
export type Authenticators = Readonly<Record<SecurityScheme, (operation: OperationSpec) => Authenticate>>;

const BEARER_CHALLENGE = 'Bearer realm="api"';
export const SESSION_COOKIE = "sid";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** RFC 6750 §2.1: the scheme is case-insensitive; the token is b64token characters. */
function parseBearer(header: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header ?? "");
  return match?.[1];
}

function readCookie(header: string | undefined, name: string): string | undefined {
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

export function createAuthenticators(deps: { verifyKey: VerifyKey; verifySession: VerifySession }): Authenticators {
  return {
    ApiKeyBearer(operation) {
      return async function authenticateApiKey(req) {
        const token = parseBearer(req.headers.authorization);
        if (token === undefined) throw unauthenticated("Send the API key as `Authorization: Bearer <API_KEY>`.");
        const principal = await deps.verifyKey(token);
        if (!principal) throw unauthenticated("The API key is not valid: unknown, revoked or expired.");
        if (operation.testModeOnly && isLiveScope(principal.workspaceId)) {
          throw new AppError("TEST_MODE_ONLY", {
            detail:
              "This operation changes test data only, and this is a live key (sk_live_): call it with a sk_test_ key.",
          });
        }
        const missing = operation.scopes.filter((scope) => !principal.scopes.includes(scope));
        if (missing.length > 0) {
          throw new AppError("INSUFFICIENT_SCOPE", {
            detail: `This operation needs the scope ${missing.join(", ")}.`,
            headers: {
              "WWW-Authenticate": `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${operation.scopes.join(" ")}"`,
            },
          });
        }
        return { principal };
      };
    },

    SessionCookie(operation) {
      return async function authenticateSession(req) {
        const token = readCookie(req.headers.cookie, SESSION_COOKIE);
        const verified = token ? await deps.verifySession(token) : undefined;
        if (!verified) {
          throw new AppError("UNAUTHENTICATED", { detail: "Sign in first: this operation needs the session cookie." });
        }
        if (!SAFE_METHODS.has(req.method ?? "")) {
          const sent = req.headers["x-csrf-token"];
          if (typeof sent !== "string" || !sent || !sameToken(sent, verified.csrfToken)) {
            throw new AppError("CSRF_TOKEN_INVALID");
          }
        }
        // The console's operations on a mode's data take `Service-Mode`; the validator admits only live and test.
        const test = operation.modeHeader && req.headers[MODE_HEADER] === "test";
        const principal = test
          ? { ...verified.principal, workspaceId: scopeOf(verified.principal.workspaceId, "test") }
          : verified.principal;
        return { principal, session: verified.session };
      };
    },
  };
}
