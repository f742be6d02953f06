/**
 * Webhook subscriptions: SQL, rules and the wire shape. Served under /v1/webhooks (API key) and
 * /api/workspace/webhooks (session) alike.
 */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { fetchPage, updateRow } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, toPage } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import { newWebhookSecret } from "./signature.ts";
import { checkWebhookUrl, type UrlCheckOptions } from "./ssrf.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Webhook = components["schemas"]["Webhook"];
export type WebhookWithSecret = components["schemas"]["WebhookWithSecret"];
export type WebhookCreate = components["schemas"]["WebhookCreate"];
export type WebhookUpdate = components["schemas"]["WebhookUpdate"];

const WEBHOOK_ID = /^wh_[0-9A-HJKMNP-TV-Z]{26}$/;
/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_HOURS = 24;
/** Subscriptions per workspace. */
export const MAX_WEBHOOKS = 20;

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: Webhook["events"];
  description: string | null;
  enabled: boolean;
  disabled_reason: Webhook["disabled_reason"];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    object: "webhook",
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    secret_rotated_at: row.secret_rotated_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  row: Pick<WebhookRow, "secret" | "previous_secret" | "previous_secret_expires_at">,
  now = Date.now(),
): string[] {
  const previous =
    row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now;
  return previous ? [row.secret, row.previous_secret as string] : [row.secret];
}

export async function lockWebhook(db: Db, workspaceId: string, id: string): Promise<WebhookRow> {
  const { rows } = await db.query<WebhookRow>("SELECT * FROM webhooks WHERE workspace_id = $1 AND id = $2 FOR UPDATE", [
    workspaceId,
    id,
  ]);
  if (!rows[0]) throw new AppError("WEBHOOK_NOT_FOUND", { detail: `No webhook subscription ${id} in this workspace.` });
  return rows[0];
}

export async function getWebhook(db: Db, workspaceId: string, id: string): Promise<Webhook> {
  const { rows } = await db.query<WebhookRow>("SELECT * FROM webhooks WHERE workspace_id = $1 AND id = $2", [
    workspaceId,
    id,
  ]);
  if (!rows[0]) throw new AppError("WEBHOOK_NOT_FOUND", { detail: `No webhook subscription ${id} in this workspace.` });
  return toWebhook(rows[0]);
}

export async function listWebhooks(db: Db, workspaceId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? 20;
  const rows = await fetchPage<WebhookRow>(db, {
    select: "SELECT * FROM webhooks",
    workspaceId,
    filters: [],
    limit,
    after: decodeCursor(query.cursor, WEBHOOK_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toWebhook) };
}

export async function createWebhook(
  db: Db,
  workspaceId: string,
  input: WebhookCreate,
  urls: UrlCheckOptions,
): Promise<WebhookWithSecret> {
  await checkWebhookUrl(input.url, urls);
  const { rows: count } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1",
    [workspaceId],
  );
  if ((count[0]?.n ?? 0) >= MAX_WEBHOOKS) {
    throw new AppError("RESOURCE_LIMIT_REACHED", {
      detail: `A workspace has at most ${MAX_WEBHOOKS} webhook subscriptions.`,
    });
  }
  const enabled = input.enabled ?? true;
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (id, workspace_id, url, events, description, enabled, disabled_reason, secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [
      newId("webhook"),
      workspaceId,
      input.url,
      input.events,
      input.description ?? null,
      enabled,
      enabled ? null : "manual",
      newWebhookSecret(),
    ],
  );
  const row = rows[0] as WebhookRow;
  return { ...toWebhook(row), secret: row.secret };
}

export async function updateWebhook(
  db: Db,
  workspaceId: string,
  id: string,
  patch: WebhookUpdate,
  urls: UrlCheckOptions,
): Promise<Webhook> {
  await lockWebhook(db, workspaceId, id);
  if (patch.url !== undefined) await checkWebhookUrl(patch.url, urls);
  const changes: Record<string, unknown> = { ...patch };
  if (patch.enabled === true) Object.assign(changes, { disabled_reason: null, failing_since: null });
  if (patch.enabled === false) changes.disabled_reason = "manual";
  const row = await updateRow<WebhookRow>(db, "webhooks", workspaceId, id, changes, [
    "url",
    "events",
    "description",
    "enabled",
    "disabled_reason",
    "failing_since",
  ]);
  return toWebhook(row as WebhookRow);
}

export async function deleteWebhook(db: Db, workspaceId: string, id: string): Promise<void> {
  const { rowCount } = await db.query("DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2", [workspaceId, id]);
  if (!rowCount)
    throw new AppError("WEBHOOK_NOT_FOUND", { detail: `No webhook subscription ${id} in this workspace.` });
}

/** A new secret; the previous one keeps signing, beside it, for SECRET_OVERLAP_HOURS. */
export async function rotateSecret(db: Db, workspaceId: string, id: string): Promise<WebhookWithSecret> {
  await lockWebhook(db, workspaceId, id);
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET previous_secret = secret, secret = $3,
            previous_secret_expires_at = now() + make_interval(hours => $4), secret_rotated_at = now(), updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING *`,
    [workspaceId, id, newWebhookSecret(), SECRET_OVERLAP_HOURS],
  );
  const row = rows[0] as WebhookRow;
  return { ...toWebhook(row), secret: row.secret };
}
