/**
 * SQL of webhook subscriptions, every query scoped to a workspace. The health columns that delivery writes
 * (`failing_since`; `enabled` when a 410 or 5 failing days disable one) are written in deliveries.store.ts.
 */
import type { components } from "@service/spec/schema";
import { listPage, type PageParams, updateRow } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";

type Webhook = components["schemas"]["Webhook"];

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: Webhook["events"];
  description: string | null;
  enabled: boolean;
  disabled_reason: Webhook["disabled_reason"];
  disabled_at: Date | null;
  max_deliveries_per_second: number | null;
  max_concurrent_deliveries: number | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  secret_rotated_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a PATCH may change (with the health that re-enabling resets). */
export type WebhookChanges = Partial<Pick<WebhookRow, (typeof UPDATABLE)[number]>>;
const UPDATABLE = [
  "url",
  "events",
  "description",
  "enabled",
  "disabled_reason",
  "disabled_at",
  "failing_since",
  "max_deliveries_per_second",
  "max_concurrent_deliveries",
] as const;

/**
 * How a transaction holds a subscription's row, the first lock it takes of a subscription (docs/webhook-deliveries.md,
 * "Lock order"): `change` (FOR NO KEY UPDATE) to change it or add to it, `delete` to delete it. Adding to it (a test
 * send, a redelivery) takes `change` rather than a shared lock: PostgreSQL lets a FOR KEY SHARE past a FOR UPDATE that
 * waits, so a stream of test sends would keep a deletion waiting until its statement timeout.
 */
export type WebhookLock = "change" | "delete";
const LOCK_CLAUSES: Readonly<Record<WebhookLock, string>> = { change: "FOR NO KEY UPDATE", delete: "FOR UPDATE" };

export async function findWebhook(
  db: Queryable,
  workspaceId: string,
  id: string,
  options: { lock?: WebhookLock } = {},
): Promise<WebhookRow | undefined> {
  const lock = options.lock ? ` ${LOCK_CLAUSES[options.lock]}` : "";
  const { rows } = await db.query<WebhookRow>(`SELECT * FROM webhooks WHERE workspace_id = $1 AND id = $2${lock}`, [
    workspaceId,
    id,
  ]);
  return rows[0];
}

/**
 * Holds these subscriptions (FOR KEY SHARE, in id order: not deleted before the caller commits) for work of the worker
 * that adds to them across workspaces: the fan-out and a recovery. Returns the ids of those that exist; one deleted
 * meanwhile is left out.
 */
export async function holdWebhooks(db: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>({
    name: "hold-webhooks",
    text: "SELECT id FROM webhooks WHERE id = ANY($1) ORDER BY id FOR KEY SHARE",
    values: [ids],
  });
  return new Set(rows.map((row) => row.id));
}

/** One page of the workspace's subscriptions, newest first, as the list envelope. */
export function listWebhookRows<Item>(
  db: Queryable,
  workspaceId: string,
  page: PageParams,
  toItem: (row: WebhookRow) => Item,
) {
  return listPage(db, { select: "SELECT * FROM webhooks", kind: "webhook", workspaceId, filters: [] }, page, toItem);
}

export async function countWebhooks(db: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhooks WHERE workspace_id = $1", [
    workspaceId,
  ]);
  return rows[0]?.n ?? 0;
}

export async function insertWebhook(
  db: Queryable,
  webhook: Pick<
    WebhookRow,
    | "id"
    | "workspace_id"
    | "url"
    | "events"
    | "description"
    | "enabled"
    | "disabled_reason"
    | "secret"
    | "max_deliveries_per_second"
    | "max_concurrent_deliveries"
  >,
): Promise<WebhookRow> {
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (id, workspace_id, url, events, description, enabled, disabled_reason, disabled_at, secret,
                           max_deliveries_per_second, max_concurrent_deliveries)
     VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $6 THEN NULL ELSE now() END, $8, $9, $10) RETURNING *`,
    [
      webhook.id,
      webhook.workspace_id,
      webhook.url,
      webhook.events,
      webhook.description,
      webhook.enabled,
      webhook.disabled_reason,
      webhook.secret,
      webhook.max_deliveries_per_second,
      webhook.max_concurrent_deliveries,
    ],
  );
  // INSERT … RETURNING without a conflict clause returns its one row or throws.
  return rows[0] as WebhookRow;
}

export function updateWebhook(
  db: Queryable,
  workspaceId: string,
  id: string,
  changes: WebhookChanges,
): Promise<WebhookRow | undefined> {
  return updateRow<WebhookRow>(db, "webhooks", workspaceId, id, changes, UPDATABLE);
}

/**
 * Deletes a subscription the caller holds (`delete`) with what hangs off it, in the lock order: its deliveries (their
 * attempts go with them), its incidents, its pace, then its row. The foreign keys' cascades would do the same in an
 * order of PostgreSQL's choosing. True when a row was deleted.
 */
export async function deleteWebhook(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  await db.query("DELETE FROM deliveries WHERE webhook_id = $1", [id]);
  await db.query("DELETE FROM webhook_incidents WHERE webhook_id = $1", [id]);
  await db.query("DELETE FROM webhook_pacing WHERE webhook_id = $1", [id]);
  const { rowCount } = await db.query("DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2", [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

/** Puts `secret` in place; the current one becomes the previous one, which keeps signing for `overlapHours`. */
export async function rotateSecret(
  db: Queryable,
  workspaceId: string,
  id: string,
  secret: string,
  overlapHours: number,
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET previous_secret = secret, secret = $3,
            previous_secret_expires_at = now() + make_interval(hours => $4), secret_rotated_at = now(), updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING *`,
    [workspaceId, id, secret, overlapHours],
  );
  return rows[0];
}
