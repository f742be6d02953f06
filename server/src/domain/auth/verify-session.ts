/**
 * The session check that `http/authenticate.ts` is given: the `sid` cookie's SHA-256 names a live session. The
 * answer carries the session's CSRF token (an HMAC of the cookie value), which writes must echo.
 */
import type pg from "pg";
import { sha256 } from "../../lib/secrets.ts";
import type { Principal } from "../principal.ts";
import { csrfTokenFor } from "./auth.service.ts";
import { findSession, type SessionRow } from "./auth.store.ts";

/** A signed-in session: its row and the cookie value that names it. */
export interface Session extends SessionRow {
  readonly token: string;
}

interface VerifiedSession {
  readonly principal: Principal;
  readonly session: Session;
  readonly csrfToken: string;
}

export type VerifySession = (token: string) => Promise<VerifiedSession | undefined>;

export function sessionVerifier(pool: pg.Pool): VerifySession {
  return async (token) => {
    const row = await findSession(pool, sha256(token));
    if (!row) return undefined;
    return {
      principal: { kind: "session", id: row.user_id, workspaceId: row.workspace_id, scopes: [] },
      session: { ...row, token },
      csrfToken: csrfTokenFor(token),
    };
  };
}
