/**
 * An operation's handler, typed from the generated contract: its path parameters, query and body arrive typed (the
 * contract check has checked them against the same document before the handler runs), and what it returns must be one
 * of the operation's success answers. Handlers therefore need no casts; `dispatch.ts` calls them in one place.
 */

import type { operations } from "@service/spec/schema";
import type { Session } from "../domain/auth/verify-session.ts";
import type { Principal } from "../domain/principal.ts";
import type { TraceContext } from "../lib/trace-context.ts";

/** An operation of the contract, by its operationId. */
export type OperationId = keyof operations;

type Parameters<Op extends OperationId> = operations[Op]["parameters"];

type PathOf<Op extends OperationId> = Parameters<Op> extends { path: infer Path extends object } ? Path : never;

type QueryOf<Op extends OperationId> =
  Parameters<Op> extends { query?: infer Query } ? ([Query] extends [undefined] ? never : NonNullable<Query>) : never;

type JsonBody<Op extends OperationId> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

type Responses<Op extends OperationId> = operations[Op]["responses"];
type SuccessStatus<Op extends OperationId> = Extract<keyof Responses<Op>, 200 | 201 | 202 | 204>;

/** One success answer of an operation: its status and, but for 204, its JSON body, as the contract declares them. */
type Reply<Op extends OperationId> = {
  [Status in SuccessStatus<Op>]: Responses<Op>[Status] extends { content: { "application/json": infer Body } }
    ? { status: Status; body: Body; headers?: Record<string, string> }
    : { status: Status; body?: undefined; headers?: Record<string, string> };
}[SuccessStatus<Op>];

interface CallOf<Params, Query, Body> {
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  /** The authenticated caller; reading it on a public operation is a 401. */
  readonly principal: Principal;
  /** The signed-in session, on operations of the `SessionCookie` scheme. */
  readonly session: Session | undefined;
  readonly request: ApiRequest;
  /**
   * Settles once the caller's budget admitted the request, or rejects with its 429 or 503. A handler may start
   * before (dispatch.ts); a write must not take effect before it, and those made with `write()` wait for it.
   */
  readonly admitted: Promise<void>;
}

/** What a handler may read of the request beyond its checked parameters and body. */
export interface ApiRequest {
  /** The request's id (`Request-Id`), which its problems carry as `request_id`. */
  readonly id: string;
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The client's address, through the proxies `TRUST_PROXY` trusts (as Express's `req.ip`). */
  readonly clientIp: string | undefined;
  /** A request header by its name (any case), or undefined. */
  header(name: string): string | undefined;
  /** Aborts when the connection closes before the answer is sent: a waiting handler stops waiting. */
  readonly closed: AbortSignal;
  /** The request's W3C trace context: the caller's trace with a span of this request, or a new trace. */
  readonly trace: TraceContext;
}

// Written as distributive conditional types so that TypeScript compares two operations' calls by their shapes, not
// by their names: one handler may then serve two operations the contract gives the same shapes.
type Call<Op extends OperationId> = Op extends OperationId ? CallOf<PathOf<Op>, QueryOf<Op>, JsonBody<Op>> : never;

type Handler<Op extends OperationId> = Op extends OperationId ? (call: Call<Op>) => Promise<Reply<Op>> : never;

/** The handler table: one entry per operation, each typed by its own operation. */
export type OperationHandlers = { readonly [Op in OperationId]?: Handler<Op> };
