/**
 * Every operation's handler, composed from each resource's routes (domain/<resource>/<resource>.routes.ts) and the
 * services they are given: the table `dispatch.ts` dispatches on, by operationId.
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Config } from "../config.ts";
import { apiKeyHandlers } from "../domain/api-keys/api-keys.routes.ts";
import { createApiKeyService } from "../domain/api-keys/api-keys.service.ts";
import type { ApiKeyCache } from "../domain/api-keys/key-cache.ts";
import { attributeHandlers } from "../domain/attribute-definitions/attribute-definitions.routes.ts";
import { authHandlers } from "../domain/auth/auth.routes.ts";
import { createAuthService } from "../domain/auth/auth.service.ts";
import { createDisposableCheck } from "../domain/auth/disposable.ts";
import { conversationHandlers } from "../domain/conversations/conversations.routes.ts";
import { snoozeEndScheduler } from "../domain/conversations/snooze-end.ts";
import { eventHandlers } from "../domain/events/events.routes.ts";
import type { StreamWaiters } from "../domain/events/stream-waiters.ts";
import { leadHandlers } from "../domain/leads/leads.routes.ts";
import { testDataHandlers } from "../domain/test-data/test-data.routes.ts";
import { ticketHandlers } from "../domain/tickets/tickets.routes.ts";
import type { UrlCheckOptions } from "../domain/webhooks/ssrf.ts";
import { webhookHandlers } from "../domain/webhooks/webhooks.routes.ts";
import { workspaceHandlers } from "../domain/workspaces/workspaces.routes.ts";
import type { Limiters } from "../rate-limit/limiters.ts";
import type { OperationHandlers } from "./handler-types.ts";
import type { OpenApiDocument } from "./openapi-document.ts";
import { schemaCheck } from "./schema-check.ts";

export interface HandlerDeps {
  config: Pick<
    Config,
    | "idempotencyWaitMs"
    | "publicBaseUrl"
    | "registrationMode"
    | "passwordHashCost"
    | "disposableEmailAllow"
    | "disposableEmailDeny"
  >;
  pool: pg.Pool;
  queue: PgBoss;
  limiters: Limiters;
  keys: ApiKeyCache;
  /** The sequencer's `settle`: a write that records events answers once they are numbered. */
  settle: () => Promise<void>;
  waiters: StreamWaiters;
  openapi: OpenApiDocument;
  urls: UrlCheckOptions;
}

export function composeHandlers(deps: HandlerDeps): OperationHandlers {
  const { config, pool, queue } = deps;
  const auth = createAuthService({
    pool,
    queue,
    limiters: deps.limiters,
    isDisposable: createDisposableCheck({ allow: config.disposableEmailAllow, deny: config.disposableEmailDeny }),
    registrationMode: config.registrationMode,
    scrypt: { N: 2 ** config.passwordHashCost, r: 8, p: 1 },
  });
  const writes = { pool, inFlightWaitMs: config.idempotencyWaitMs };
  const changes = { ...writes, settle: deps.settle, scheduleSnoozeEnd: snoozeEndScheduler(queue) };
  return {
    ...authHandlers({
      service: auth,
      pool,
      secureCookies: config.publicBaseUrl.startsWith("https:"),
      registrationMode: config.registrationMode,
    }),
    ...workspaceHandlers(),
    ...apiKeyHandlers({ apiKeys: createApiKeyService(pool, { onKeyChanged: deps.keys.forget }) }),
    ...leadHandlers({ ...changes, checkLead: schemaCheck(deps.openapi.doc, "LeadBatchUpsertItem") }),
    ...conversationHandlers(changes),
    ...ticketHandlers({ ...changes, checkTicket: schemaCheck(deps.openapi.doc, "TicketBatchUpsertItem") }),
    ...eventHandlers({ pool, waiters: deps.waiters, openapi: deps.openapi.doc }),
    ...webhookHandlers({ ...writes, urls: deps.urls, queue }),
    ...testDataHandlers({ ...writes, queue }),
    ...attributeHandlers(changes),
  };
}
