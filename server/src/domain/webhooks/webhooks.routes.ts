/**
 * HTTP handlers of webhook subscriptions, the same under `/v1/webhooks` (operationIds `Webhooks_*`, API key) and
 * `/api/workspace/webhooks` (`WorkspaceWebhooks_*`, session): the contract gives both the same shapes, so one
 * handler serves each pair.
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { storedTrace } from "../../lib/trace-context.ts";
import { type EventType, testEvent } from "../events/events.service.ts";
import { type WriteDeps, write } from "../idempotency/write-handler.ts";
import { isLiveScope } from "../modes.ts";
import * as deliveries from "./deliveries.service.ts";
import { startRecovery } from "./recover.ts";
import { sampleObject } from "./samples.ts";
import type { UrlCheckOptions } from "./ssrf.ts";
import * as webhooks from "./webhooks.service.ts";

export function webhookHandlers(
  deps: WriteDeps & { pool: pg.Pool; urls: UrlCheckOptions; queue: PgBoss },
): OperationHandlers {
  const { pool, urls, queue } = deps;
  const handlers = {
    Webhooks_list: async ({ principal, query }) => ({
      status: 200,
      body: await webhooks.listWebhooks(pool, principal.workspaceId, query),
    }),
    Webhooks_get: async ({ principal, params }) => ({
      status: 200,
      body: await webhooks.getWebhook(pool, principal.workspaceId, params.webhook_id),
    }),
    Webhooks_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await webhooks.createWebhook(db, principal.workspaceId, body, urls),
    })),
    Webhooks_update: write(deps, async ({ principal, params, body }, db) => ({
      status: 200,
      body: await webhooks.updateWebhook(db, principal.workspaceId, params.webhook_id, body, urls),
    })),
    Webhooks_delete: write(deps, async ({ principal, params }, db) => {
      await webhooks.deleteWebhook(db, principal.workspaceId, params.webhook_id);
      return { status: 204 };
    }),
    Webhooks_rotateSecret: write(deps, async ({ principal, params }, db) => ({
      status: 200,
      body: await webhooks.rotateSecret(db, principal.workspaceId, params.webhook_id),
    })),
    Webhooks_sendTest: write(deps, async ({ principal, params, body, request }, db) => {
      const ws = principal.workspaceId;
      await webhooks.lockWebhook(db, ws, params.webhook_id, "change");
      const type: EventType = body.event_type ?? "lead.captured";
      // The envelope of a test event is built as every event's is; the event itself is not stored.
      const envelope = testEvent(ws, type, sampleObject(type, isLiveScope(ws)));
      const [id] = await deliveries.sendEvent(queue, db, envelope, [params.webhook_id], storedTrace(request.trace));
      return { status: 202, body: await deliveries.getDelivery(db, ws, params.webhook_id, id as string) };
    }),
    Webhooks_listDeliveries: async ({ principal, params, query }) => {
      await webhooks.getWebhook(pool, principal.workspaceId, params.webhook_id);
      return {
        status: 200,
        body: await deliveries.listDeliveries(pool, principal.workspaceId, params.webhook_id, query),
      };
    },
    Webhooks_getDelivery: async ({ principal, params }) => ({
      status: 200,
      body: await deliveries.getDelivery(pool, principal.workspaceId, params.webhook_id, params.delivery_id),
    }),
    Webhooks_redeliver: write(deps, async ({ principal, params }, db) => ({
      status: 202,
      body: await deliveries.redeliver(queue, db, principal.workspaceId, params.webhook_id, params.delivery_id),
    })),
    Webhooks_recover: write(deps, async ({ principal, params, body }, db) => {
      const recovery = await startRecovery(queue, db, principal.workspaceId, params.webhook_id, body);
      return { status: recovery.dry_run ? 200 : 202, body: recovery };
    }),
    Webhooks_stats: async ({ principal, params, query }) => ({
      status: 200,
      body: await deliveries.stats(pool, principal.workspaceId, params.webhook_id, query.since),
    }),
  } satisfies OperationHandlers;
  return {
    ...handlers,
    WorkspaceWebhooks_list: handlers.Webhooks_list,
    WorkspaceWebhooks_get: handlers.Webhooks_get,
    WorkspaceWebhooks_create: handlers.Webhooks_create,
    WorkspaceWebhooks_update: handlers.Webhooks_update,
    WorkspaceWebhooks_delete: handlers.Webhooks_delete,
    WorkspaceWebhooks_rotateSecret: handlers.Webhooks_rotateSecret,
    WorkspaceWebhooks_sendTest: handlers.Webhooks_sendTest,
    WorkspaceWebhooks_listDeliveries: handlers.Webhooks_listDeliveries,
    WorkspaceWebhooks_getDelivery: handlers.Webhooks_getDelivery,
    WorkspaceWebhooks_redeliver: handlers.Webhooks_redeliver,
    WorkspaceWebhooks_recover: handlers.Webhooks_recover,
    WorkspaceWebhooks_stats: handlers.Webhooks_stats,
  };
}
