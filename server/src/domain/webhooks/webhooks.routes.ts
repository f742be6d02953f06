/**
 * HTTP handlers of webhook subscriptions, the same under `/v1/webhooks` (operationIds `Webhooks_*`, API key) and
 * `/api/workspace/webhooks` (`WorkspaceWebhooks_*`, session).
 */
import type { Request } from "express";
import type { JsonBody, QueryOf } from "../../http/handler-types.ts";
import type { OperationHandlers } from "../../http/operations.ts";
import { newId } from "../../lib/ids.ts";
import { type EventType, toEvent } from "../events/events.ts";
import { type WriteOptions, workspaceOf, writeHandler } from "../v1.routes.ts";
import * as deliveries from "./deliveries.service.ts";
import { sampleObject } from "./samples.ts";
import type { UrlCheckOptions } from "./ssrf.ts";
import * as webhooks from "./webhooks.service.ts";

const param = (req: Request, name: string) => String(req.params[name]);

export function webhookHandlers(
  prefix: "Webhooks" | "WorkspaceWebhooks",
  options: WriteOptions & { urls: UrlCheckOptions },
): OperationHandlers {
  const { pool, urls } = options;
  const handlers: Record<string, OperationHandlers[keyof OperationHandlers]> = {
    async list(req, res) {
      res.status(200).json(await webhooks.listWebhooks(pool, workspaceOf(res), req.query as QueryOf<"Webhooks_list">));
    },
    async get(req, res) {
      res.status(200).json(await webhooks.getWebhook(pool, workspaceOf(res), param(req, "webhook_id")));
    },
    create: writeHandler(options, async (db, ws, req) => ({
      status: 201,
      body: await webhooks.createWebhook(db, ws, req.body as JsonBody<"Webhooks_create">, urls),
    })),
    update: writeHandler(options, async (db, ws, req) => ({
      status: 200,
      body: await webhooks.updateWebhook(
        db,
        ws,
        param(req, "webhook_id"),
        req.body as JsonBody<"Webhooks_update">,
        urls,
      ),
    })),
    delete: writeHandler(options, async (db, ws, req) => {
      await webhooks.deleteWebhook(db, ws, param(req, "webhook_id"));
      return { status: 204, body: null };
    }),
    rotateSecret: writeHandler(options, async (db, ws, req) => ({
      status: 200,
      body: await webhooks.rotateSecret(db, ws, param(req, "webhook_id")),
    })),
    sendTest: writeHandler(options, async (db, ws, req) => {
      const webhookId = param(req, "webhook_id");
      await webhooks.lockWebhook(db, ws, webhookId);
      const type: EventType = (req.body as JsonBody<"Webhooks_sendTest">).event_type ?? "lead.captured";
      const eventId = newId("event");
      // The envelope of a test event is built as every event's is; the event itself is not stored.
      const envelope = toEvent({
        id: eventId,
        workspace_id: ws,
        type,
        data: sampleObject(type),
        created_at: new Date(),
      });
      const [id] = await deliveries.sendEvent(db, envelope, [webhookId]);
      return { status: 202, body: await deliveries.getDelivery(db, ws, webhookId, id as string) };
    }),
    async listDeliveries(req, res) {
      const ws = workspaceOf(res);
      await webhooks.getWebhook(pool, ws, param(req, "webhook_id"));
      res
        .status(200)
        .json(
          await deliveries.listDeliveries(
            pool,
            ws,
            param(req, "webhook_id"),
            req.query as QueryOf<"Webhooks_listDeliveries">,
          ),
        );
    },
    async getDelivery(req, res) {
      res
        .status(200)
        .json(
          await deliveries.getDelivery(pool, workspaceOf(res), param(req, "webhook_id"), param(req, "delivery_id")),
        );
    },
    redeliver: writeHandler(options, async (db, ws, req) => ({
      status: 202,
      body: await deliveries.redeliver(db, ws, param(req, "webhook_id"), param(req, "delivery_id")),
    })),
  };
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [`${prefix}_${name}`, handler]),
  ) as OperationHandlers;
}
