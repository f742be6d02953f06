/**
 * The handler of a write: one transaction, idempotent when the request carries an `Idempotency-Key` (the answer is
 * stored with the effect and replayed with `Idempotent-Replayed: true`; idempotency.ts). Always in the caller's
 * workspace. The routes of each resource make their writes with it; the dispatch (http/dispatch.ts) asks
 * `waitsForAdmission` whether a handler may start before the budget's decision.
 */

import type pg from "pg";
import type { TraceContext } from "../../lib/trace-context.ts";
import { deferEvents, deferredEventsSql } from "../events/events.service.ts";
import type { Principal } from "../principal.ts";
import { idempotentWrite } from "./idempotency.ts";

/** What a write reads of its request (the dispatch's `ApiRequest` has it). */
interface WriteRequest {
  readonly method: string;
  readonly path: string;
  readonly trace: TraceContext;
  header(name: string): string | undefined;
}

/** The handlers made by `write()`: they take no effect before the budget admits the call, so they may start before. */
const admittingHandlers = new WeakSet<object>();

/** Whether this handler waits for `call.admitted` before taking any effect. */
export function waitsForAdmission(handler: object): boolean {
  return admittingHandlers.has(handler);
}

export interface WriteDeps {
  pool: pg.Pool;
  /** How long a request waits for one in flight with the same key. */
  inFlightWaitMs: number;
  /**
   * For writes that record events: resolves once the events committed before the call are numbered (the sequencer's
   * `settle`), so that a client holding the 2xx finds them in `/v1/events`.
   */
  settle?: () => Promise<void>;
}

/**
 * @example
 * Leads_delete: write(deps, async ({ principal, params }, db) => {
 *   await leads.remove(db, principal.workspaceId, params.lead_id);
 *   return { status: 204 };
 * }),
 */
export function write<
  C extends {
    readonly principal: Principal;
    readonly request: WriteRequest;
    readonly body: unknown;
    readonly admitted: Promise<void>;
  },
  R extends { status: number; body?: unknown; headers?: Record<string, string> },
>(deps: WriteDeps, effect: (call: C, db: pg.PoolClient) => Promise<R>): (call: C) => Promise<R> {
  const handler = async (call: C): Promise<R> => {
    const { request } = call;
    const { answer, replayed } = await idempotentWrite(
      deps.pool,
      {
        workspaceId: call.principal.workspaceId,
        inFlightWaitMs: deps.inFlightWaitMs,
        key: request.header("idempotency-key"),
        method: request.method,
        path: request.path,
        body: call.body,
      },
      async (db) => {
        // The change's events travel with its COMMIT (events.service.ts); a failed effect leaves none behind on the
        // pooled connection for its next user.
        deferEvents(db, request.trace);
        try {
          // Started before the budget's decision (http/dispatch.ts): nothing is written until it admits the call.
          await call.admitted;
          const reply = await effect(call, db);
          return { status: reply.status, body: reply.body, ...(reply.headers && { headers: reply.headers }) };
        } catch (error) {
          deferredEventsSql(db);
          throw error;
        }
      },
      deferredEventsSql,
    );
    // A replay runs no effect: it, too, is answered only once the budget admits the call.
    await call.admitted;
    if (!replayed && deps.settle && answer.status < 300) await deps.settle();
    // A replay is the answer stored by this same operation, so it has the operation's reply shape.
    const reply = { status: answer.status, body: answer.body ?? undefined, headers: answer.headers } as R;
    return replayed ? { ...reply, headers: { ...answer.headers, "Idempotent-Replayed": "true" } } : reply;
  };
  admittingHandlers.add(handler);
  return handler;
}
