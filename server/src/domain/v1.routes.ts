/** HTTP handlers of the `/v1` resources. Writes run through `idempotentWrite`; every query is scoped to the key's workspace. */
import type { Request, Response } from "express";
import type pg from "pg";
import { AppError } from "../errors.ts";
import type { JsonBody, QueryOf } from "../http/handler-types.ts";
import type { OperationHandlers } from "../http/operations.ts";
import * as conversations from "./conversations/conversations.ts";
import type { RecordEvent } from "./events/events.ts";
import * as events from "./events/events.ts";
import { idempotentWrite, type WriteAnswer } from "./idempotency/idempotency.ts";
import * as leads from "./leads/leads.ts";
import * as tickets from "./tickets/tickets.ts";

export function workspaceOf(res: Response): string {
  const principal = res.locals.apiKey ?? res.locals.session;
  const workspaceId = principal && "keyId" in principal ? principal.workspaceId : principal?.workspace_id;
  if (!workspaceId) throw new AppError("UNAUTHENTICATED");
  return workspaceId;
}

export interface WriteOptions {
  pool: pg.Pool;
  inFlightWaitMs: number;
  /** Records events with their webhook deliveries, in the write's transaction. */
  record: RecordEvent;
}

/** A write: idempotent when the request has an `Idempotency-Key`, one transaction either way. */
export function writeHandler(
  options: WriteOptions,
  effect: (db: pg.PoolClient, workspaceId: string, req: Request) => Promise<WriteAnswer>,
) {
  return async (req: Request, res: Response): Promise<void> => {
    const workspaceId = workspaceOf(res);
    const { answer, replayed } = await idempotentWrite(
      options.pool,
      {
        workspaceId,
        inFlightWaitMs: options.inFlightWaitMs,
        key: req.get("idempotency-key"),
        method: req.method,
        path: req.path,
        body: req.body,
      },
      (db) => effect(db, workspaceId, req),
    );
    if (replayed) res.set("Idempotent-Replayed", "true");
    res.status(answer.status);
    if (answer.status === 204) res.end();
    else res.json(answer.body);
  };
}

const param = (req: Request, name: string) => String(req.params[name]);

export function v1Handlers(options: WriteOptions): OperationHandlers {
  const { pool } = options;
  const read =
    <T>(run: (workspaceId: string, req: Request) => Promise<T>) =>
    async (req: Request, res: Response): Promise<void> => {
      res.status(200).json(await run(workspaceOf(res), req));
    };
  return {
    Leads_list: read((ws, req) => leads.listLeads(pool, ws, req.query as QueryOf<"Leads_list">)),
    Leads_get: read((ws, req) => leads.getLead(pool, ws, param(req, "lead_id"))),
    Leads_create: writeHandler(options, async (db, ws, req) => ({
      status: 201,
      body: await leads.createLead(db, ws, req.body as JsonBody<"Leads_create">, options.record),
    })),
    Leads_update: writeHandler(options, async (db, ws, req) => ({
      status: 200,
      body: await leads.updateLead(db, ws, param(req, "lead_id"), req.body as JsonBody<"Leads_update">),
    })),
    Leads_delete: writeHandler(options, async (db, ws, req) => {
      await leads.deleteLead(db, ws, param(req, "lead_id"));
      return { status: 204, body: null };
    }),

    Conversations_list: read((ws, req) =>
      conversations.listConversations(pool, ws, req.query as QueryOf<"Conversations_list">),
    ),
    Conversations_get: read((ws, req) => conversations.getConversation(pool, ws, param(req, "conversation_id"))),
    Conversations_create: writeHandler(options, async (db, ws, req) => ({
      status: 201,
      body: await conversations.createConversation(
        db,
        ws,
        req.body as JsonBody<"Conversations_create">,
        options.record,
      ),
    })),
    Conversations_update: writeHandler(options, async (db, ws, req) => ({
      status: 200,
      body: await conversations.updateConversation(
        db,
        ws,
        param(req, "conversation_id"),
        req.body as JsonBody<"Conversations_update">,
      ),
    })),
    Conversations_listMessages: read((ws, req) =>
      conversations.listMessages(
        pool,
        ws,
        param(req, "conversation_id"),
        req.query as QueryOf<"Conversations_listMessages">,
      ),
    ),
    Conversations_createMessage: writeHandler(options, async (db, ws, req) => ({
      status: 201,
      body: await conversations.addMessage(
        db,
        ws,
        param(req, "conversation_id"),
        req.body as JsonBody<"Conversations_createMessage">,
      ),
    })),

    Tickets_list: read((ws, req) => tickets.listTickets(pool, ws, req.query as QueryOf<"Tickets_list">)),
    Tickets_get: read(async (ws, req) => tickets.toTicket(await tickets.getTicket(pool, ws, param(req, "ticket_id")))),
    Tickets_create: writeHandler(options, async (db, ws, req) => ({
      status: 201,
      body: await tickets.createTicket(db, ws, req.body as JsonBody<"Tickets_create">, options.record),
    })),
    Tickets_update: writeHandler(options, async (db, ws, req) => ({
      status: 200,
      body: await tickets.updateTicket(
        db,
        ws,
        param(req, "ticket_id"),
        req.body as JsonBody<"Tickets_update">,
        options.record,
      ),
    })),

    Events_list: read((ws, req) => events.listEvents(pool, ws, req.query as QueryOf<"Events_list">)),
    Events_get: read((ws, req) => events.getEvent(pool, ws, param(req, "event_id"))),
  };
}
