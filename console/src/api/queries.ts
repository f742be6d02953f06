/** The console's reads: one query key and one fetch per resource, so that a write knows what to refresh. */
import type { components } from "@service/spec/schema";
import { queryOptions } from "@tanstack/react-query";
import { api } from "./client.ts";
import { unwrap } from "./errors.ts";

export type ApiKey = components["schemas"]["ApiKey"];
export type ApiKeyWithSecret = components["schemas"]["ApiKeyWithSecret"];
export type Webhook = components["schemas"]["Webhook"];
export type WebhookWithSecret = components["schemas"]["WebhookWithSecret"];
export type WebhookUpdate = components["schemas"]["WebhookUpdate"];
export type WebhookRecovery = components["schemas"]["WebhookRecovery"];
export type Delivery = components["schemas"]["Delivery"];
export type DeliveryAttempt = components["schemas"]["DeliveryAttempt"];
export type EventType = components["schemas"]["EventType"];
export type AttributeDefinition = components["schemas"]["AttributeDefinition"];

/** The newest this many: a workspace rarely has more keys or endpoints; the lists say when there are. */
const PAGE_LIMIT = 100;

export const queryKeys = {
  apiKeys: ["api-keys"] as const,
  webhooks: ["webhooks"] as const,
  events: ["events"] as const,
  attributeDefinitions: ["attribute-definitions"] as const,
  webhook: (id: string) => ["webhooks", id] as const,
  deliveries: (id: string) => ["webhooks", id, "deliveries"] as const,
  stats: (id: string) => ["webhooks", id, "stats"] as const,
  delivery: (id: string, deliveryId: string) => ["webhooks", id, "deliveries", deliveryId] as const,
};

export const apiKeysQuery = queryOptions({
  queryKey: queryKeys.apiKeys,
  queryFn: () => unwrap(api.GET("/api/workspace/api-keys", { params: { query: { limit: PAGE_LIMIT } } })),
});

export const eventsQuery = queryOptions({
  queryKey: queryKeys.events,
  queryFn: () => unwrap(api.GET("/api/workspace/events", { params: { query: { limit: PAGE_LIMIT } } })),
});

export const attributeDefinitionsQuery = queryOptions({
  queryKey: queryKeys.attributeDefinitions,
  queryFn: () => unwrap(api.GET("/api/workspace/attribute-definitions", { params: { query: { limit: PAGE_LIMIT } } })),
});

export const webhooksQuery = queryOptions({
  queryKey: queryKeys.webhooks,
  queryFn: () => unwrap(api.GET("/api/workspace/webhooks", { params: { query: { limit: PAGE_LIMIT } } })),
});

export function webhookQuery(id: string) {
  return queryOptions({
    queryKey: queryKeys.webhook(id),
    queryFn: () => unwrap(api.GET("/api/workspace/webhooks/{webhook_id}", { params: { path: { webhook_id: id } } })),
  });
}

export function deliveriesQuery(id: string) {
  return queryOptions({
    queryKey: queryKeys.deliveries(id),
    queryFn: () =>
      unwrap(
        api.GET("/api/workspace/webhooks/{webhook_id}/deliveries", {
          params: { path: { webhook_id: id }, query: { limit: PAGE_LIMIT } },
        }),
      ),
  });
}

export function deliveryQuery(id: string, deliveryId: string) {
  return queryOptions({
    queryKey: queryKeys.delivery(id, deliveryId),
    queryFn: () =>
      unwrap(
        api.GET("/api/workspace/webhooks/{webhook_id}/deliveries/{delivery_id}", {
          params: { path: { webhook_id: id, delivery_id: deliveryId } },
        }),
      ),
  });
}

/** The endpoint's health over the service's default window, the last 24 hours. */
export function webhookStatsQuery(id: string) {
  return queryOptions({
    queryKey: queryKeys.stats(id),
    queryFn: () =>
      unwrap(api.GET("/api/workspace/webhooks/{webhook_id}/stats", { params: { path: { webhook_id: id } } })),
  });
}
