/**
 * Webhook subscriptions: their rules and their wire shape. Served under /v1/webhooks (API key) and
 * /api/workspace/webhooks (session) alike; the SQL is in webhooks.store.ts.
 */
import type { components } from "@service/spec/schema";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { isLiveScope } from "../modes.ts";
import { closeIncidents } from "./incidents.ts";
import { newWebhookSecret } from "./signature.ts";
import { checkWebhookUrl, type UrlCheckOptions } from "./ssrf.ts";
import * as store from "./webhooks.store.ts";

export type Webhook = components["schemas"]["Webhook"];
export type WebhookWithSecret = components["schemas"]["WebhookWithSecret"];
export type WebhookCreate = components["schemas"]["WebhookCreate"];
export type WebhookUpdate = components["schemas"]["WebhookUpdate"];

/** How long the previous secret keeps signing after a rotation. */
const SECRET_OVERLAP_HOURS = 24;
/** Subscriptions per workspace. */
export const MAX_WEBHOOKS = 20;

function toWebhook(row: store.WebhookRow): Webhook {
  return {
    id: row.id,
    object: "webhook",
    livemode: isLiveScope(row.workspace_id),
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    max_deliveries_per_second: row.max_deliveries_per_second,
    max_concurrent_deliveries: row.max_concurrent_deliveries,
    secret_rotated_at: row.secret_rotated_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function notFound(id: string): AppError {
  return new AppError("WEBHOOK_NOT_FOUND", { detail: `No webhook subscription ${id} in this workspace.` });
}

/**
 * Holds the subscription for the caller's transaction, before anything else of it: the lock order of
 * docs/webhook-deliveries.md. 404 when it is not in the workspace.
 */
export async function lockWebhook(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock: store.WebhookLock,
): Promise<store.WebhookRow> {
  const row = await store.findWebhook(db, workspaceId, id, { lock });
  if (!row) throw notFound(id);
  return row;
}

export async function getWebhook(db: Queryable, workspaceId: string, id: string): Promise<Webhook> {
  const row = await store.findWebhook(db, workspaceId, id);
  if (!row) throw notFound(id);
  return toWebhook(row);
}

export function listWebhooks(db: Queryable, workspaceId: string, query: PageParams) {
  return store.listWebhookRows(db, workspaceId, query, toWebhook);
}

export async function createWebhook(
  db: Queryable,
  workspaceId: string,
  input: WebhookCreate,
  urls: UrlCheckOptions,
): Promise<WebhookWithSecret> {
  await checkWebhookUrl(input.url, urls);
  if ((await store.countWebhooks(db, workspaceId)) >= MAX_WEBHOOKS) {
    throw new AppError("RESOURCE_LIMIT_REACHED", {
      detail: `A workspace has at most ${MAX_WEBHOOKS} webhook subscriptions.`,
    });
  }
  const enabled = input.enabled ?? true;
  const row = await store.insertWebhook(db, {
    id: newId("webhook"),
    workspace_id: workspaceId,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    enabled,
    disabled_reason: enabled ? null : "manual",
    secret: newWebhookSecret(),
    max_deliveries_per_second: input.max_deliveries_per_second ?? null,
    max_concurrent_deliveries: input.max_concurrent_deliveries ?? null,
  });
  return { ...toWebhook(row), secret: row.secret };
}

export async function updateWebhook(
  db: Queryable,
  workspaceId: string,
  id: string,
  patch: WebhookUpdate,
  urls: UrlCheckOptions,
): Promise<Webhook> {
  const before = await lockWebhook(db, workspaceId, id, "change");
  if (patch.url !== undefined) await checkWebhookUrl(patch.url, urls);
  const changes: store.WebhookChanges = { ...patch };
  // Enabling again starts afresh (the failing streak and the incidents that told the owner too); disabling by hand
  // says so, and since when.
  if (patch.enabled === true && !before.enabled) {
    changes.disabled_reason = null;
    changes.disabled_at = null;
    changes.failing_since = null;
    await closeIncidents(db, id);
  }
  if (patch.enabled === false && before.enabled) {
    changes.disabled_reason = "manual";
    changes.disabled_at = new Date();
  }
  const row = await store.updateWebhook(db, workspaceId, id, changes);
  if (!row) throw notFound(id);
  return toWebhook(row);
}

export async function deleteWebhook(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await lockWebhook(db, workspaceId, id, "delete");
  if (!(await store.deleteWebhook(db, workspaceId, id))) throw notFound(id);
}

/** A new secret; the previous one keeps signing, beside it, for SECRET_OVERLAP_HOURS. */
export async function rotateSecret(db: Queryable, workspaceId: string, id: string): Promise<WebhookWithSecret> {
  await lockWebhook(db, workspaceId, id, "change");
  const row = await store.rotateSecret(db, workspaceId, id, newWebhookSecret(), SECRET_OVERLAP_HOURS);
  if (!row) throw notFound(id);
  return { ...toWebhook(row), secret: row.secret };
}
