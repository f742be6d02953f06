/** SQL of API keys. Every query is scoped to a workspace, except the lookup by secret hash. */
import type { components } from "@service/spec/schema";
import { listPage, type PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  scopes: components["schemas"]["Scope"][];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = "id, workspace_id, name, prefix, scopes, created_at, last_used_at, expires_at, revoked_at";

export async function insertKey(
  db: Queryable,
  key: {
    id: string;
    workspaceId: string;
    name: string;
    prefix: string;
    secretHash: Buffer;
    scopes: ApiKeyRow["scopes"];
    expiresAt: Date | null;
    rotatedFrom?: string;
  },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, workspace_id, name, prefix, secret_hash, scopes, expires_at, rotated_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [key.id, key.workspaceId, key.name, key.prefix, key.secretHash, key.scopes, key.expiresAt, key.rotatedFrom ?? null],
  );
  return rows[0] as ApiKeyRow;
}

/** A page of the workspace's keys, newest first; never their hashes. */
export function listKeyRows<Item>(
  db: Queryable,
  workspaceId: string,
  page: PageParams,
  toItem: (row: ApiKeyRow) => Item,
) {
  return listPage(
    db,
    { select: `SELECT ${COLUMNS} FROM api_keys`, kind: "apiKey", workspaceId, filters: [] },
    page,
    toItem,
  );
}

export async function getKey(
  db: Queryable,
  workspaceId: string,
  id: string,
  forUpdate = false,
): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE workspace_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`,
    [workspaceId, id],
  );
  return rows[0];
}

/** Tells every process's key cache (key-cache.ts) to forget this key; delivered when the transaction commits. */
async function announceChange(db: Queryable, id: string): Promise<void> {
  await db.query("SELECT pg_notify('api_key_changed', $1)", [id]);
}

export async function revokeKey(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  // One statement: the revocation and its announcement commit together (two could lose the NOTIFY to a blip).
  const { rowCount } = await db.query(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE workspace_id = $1 AND id = $2 RETURNING id
     ) SELECT pg_notify('api_key_changed', id) FROM revoked`,
    [workspaceId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** Ends the old key's life `overlapSeconds` from now (or keeps an earlier expiry). */
export async function expireAfter(db: Queryable, id: string, overlapSeconds: number): Promise<void> {
  await db.query(
    `UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(secs => $2))
      WHERE id = $1`,
    [id, overlapSeconds],
  );
  await announceChange(db, id);
}

/** The hot path of every /v1 call: one indexed lookup, no KDF. */
export async function findActiveByHash(db: Queryable, secretHash: Buffer): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>({
    name: "api-key-by-hash",
    text: `SELECT ${COLUMNS} FROM api_keys
      WHERE secret_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    values: [secretHash],
  });
  return rows[0];
}

export async function saveLastUsed(db: Queryable, uses: { id: string; at: Date }[]): Promise<void> {
  if (uses.length === 0) return;
  await db.query(
    `UPDATE api_keys AS k SET last_used_at = v.at
       FROM unnest($1::text[], $2::timestamptz[]) AS v(id, at)
      WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`,
    [uses.map((use) => use.id), uses.map((use) => use.at)],
  );
}

/** The workspace of a key, whatever its state (the admin CLI revokes by id alone). */
export async function workspaceOfKey(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ workspace_id: string }>("SELECT workspace_id FROM api_keys WHERE id = $1", [id]);
  return rows[0]?.workspace_id;
}
