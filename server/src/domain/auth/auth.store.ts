/** SQL of accounts: registrations, users, tokens, sessions and invites. */
import type { Queryable } from "../../db/queryable.ts";

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  workspace_id: string;
  created_at: Date;
}

export interface SessionRow {
  user_id: string;
  expires_at: Date;
  email: string;
  name: string | null;
  user_created_at: Date;
  workspace_id: string;
  workspace_name: string;
  workspace_created_at: Date;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>("SELECT * FROM users WHERE email = $1", [email]);
  return rows[0];
}

export async function findUserEmail(db: Queryable, userId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ email: string }>("SELECT email FROM users WHERE id = $1", [userId]);
  return rows[0]?.email;
}

export async function insertRegistration(
  db: Queryable,
  registration: { email: string; name: string | null; passwordHash: string; inviteCodeHash: Buffer | null },
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO pending_registrations (email, name, password_hash, invite_code_hash)
     VALUES ($1, $2, $3, $4) RETURNING id`,
    [registration.email, registration.name, registration.passwordHash, registration.inviteCodeHash],
  );
  return Number(rows[0]?.id);
}

export async function latestRegistration(db: Queryable, email: string): Promise<{ id: number } | undefined> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT id FROM pending_registrations WHERE email = $1 ORDER BY id DESC LIMIT 1",
    [email],
  );
  return rows[0] ? { id: Number(rows[0].id) } : undefined;
}

export async function latestRegistrationHash(db: Queryable, email: string): Promise<string | undefined> {
  const { rows } = await db.query<{ password_hash: string }>(
    "SELECT password_hash FROM pending_registrations WHERE email = $1 ORDER BY id DESC LIMIT 1",
    [email],
  );
  return rows[0]?.password_hash;
}

export async function insertToken(
  db: Queryable,
  token: { hash: Buffer; purpose: "verify" | "reset"; registrationId?: number; userId?: string; ttlSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO email_tokens (token_hash, purpose, registration_id, user_id, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
    [token.hash, token.purpose, token.registrationId ?? null, token.userId ?? null, token.ttlSeconds],
  );
}

/** Marks an unused, unexpired token used and returns what it points at; undefined when it is not valid. */
export async function consumeToken(
  db: Queryable,
  hash: Buffer,
  purpose: "verify" | "reset",
): Promise<{ registration_id: string | null; user_id: string | null } | undefined> {
  const { rows } = await db.query<{ registration_id: string | null; user_id: string | null }>(
    `UPDATE email_tokens SET used_at = now()
      WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING registration_id, user_id`,
    [hash, purpose],
  );
  return rows[0];
}

/** Ends every unused token of this purpose of a user (a completed reset voids the older reset links). */
export async function voidTokensOf(db: Queryable, userId: string, purpose: "verify" | "reset"): Promise<void> {
  await db.query("UPDATE email_tokens SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL", [
    userId,
    purpose,
  ]);
}

export async function registrationById(
  db: Queryable,
  id: number,
): Promise<{ email: string; name: string | null; password_hash: string; invite_code_hash: Buffer | null } | undefined> {
  const { rows } = await db.query("SELECT * FROM pending_registrations WHERE id = $1", [id]);
  return rows[0];
}

export async function deleteRegistrations(db: Queryable, email: string): Promise<void> {
  await db.query("DELETE FROM pending_registrations WHERE email = $1", [email]);
}

export async function insertUser(
  db: Queryable,
  user: { id: string; email: string; name: string | null; passwordHash: string | null; workspaceId: string },
): Promise<void> {
  await db.query("INSERT INTO users (id, email, name, password_hash, workspace_id) VALUES ($1, $2, $3, $4, $5)", [
    user.id,
    user.email,
    user.name,
    user.passwordHash,
    user.workspaceId,
  ]);
}

export async function setPassword(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query("UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1", [userId, passwordHash]);
}

export async function revokeSessionsOf(db: Queryable, userId: string): Promise<void> {
  await db.query("UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL", [userId]);
}

export async function insertSession(
  db: Queryable,
  session: { hash: Buffer; userId: string; ttlSeconds: number },
): Promise<Date> {
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
     RETURNING expires_at`,
    [session.hash, session.userId, session.ttlSeconds],
  );
  return rows[0]?.expires_at as Date;
}

export async function findSession(db: Queryable, hash: Buffer): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT s.user_id, s.expires_at, u.email, u.name, u.created_at AS user_created_at,
            w.id AS workspace_id, w.name AS workspace_name, w.created_at AS workspace_created_at
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN workspaces w ON w.id = u.workspace_id
      WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
    [hash],
  );
  return rows[0];
}

export async function revokeSession(db: Queryable, hash: Buffer): Promise<void> {
  await db.query("UPDATE sessions SET revoked_at = now() WHERE token_hash = $1", [hash]);
}

/** An invite usable by this address right now. */
export async function findUsableInvite(db: Queryable, codeHash: Buffer, email: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "SELECT 1 FROM invites WHERE code_hash = $1 AND email = $2 AND used_at IS NULL AND expires_at > now()",
    [codeHash, email],
  );
  return (rowCount ?? 0) > 0;
}

export async function useInvite(db: Queryable, codeHash: Buffer, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "UPDATE invites SET used_at = now(), used_by = $2 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()",
    [codeHash, userId],
  );
  return (rowCount ?? 0) > 0;
}

export async function insertInvite(
  db: Queryable,
  invite: { codeHash: Buffer; email: string; ttlSeconds: number },
): Promise<Date> {
  const { rows } = await db.query<{ expires_at: Date }>(
    "INSERT INTO invites (code_hash, email, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at",
    [invite.codeHash, invite.email, invite.ttlSeconds],
  );
  return rows[0]?.expires_at as Date;
}
