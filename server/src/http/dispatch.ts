/**
 * The contract's operations on Express, in two steps around express-openapi-validator's request check
 * (api-router.ts):
 *
 * - `authenticate`, once the validator has matched the request to its operation (`req.openapi`) and before it checks
 *   the body: the caller by the operation's security scheme, and its scope. An invalid key is a 401 and a read-only
 *   key a 403 whatever the body holds: who may call is decided before what was sent (RFC 9110 §15.5.2: a 401 says the
 *   request lacks valid credentials, which no better body would fix).
 * - `dispatch`, once the request passed the contract check: spends the caller's request budget, runs the operation's
 *   typed handler and sends its reply with `res.json` (where the validator checks it against the contract, outside
 *   production).
 *
 * A read, or a write that takes no effect before the budget admits it (domain/idempotency/write-handler.ts), starts while the budget is checked
 * if the caller's last decision left room (budget.ts): one round trip less, and nothing written or read for a caller
 * over its budget.
 *
 * The handlers come from a table keyed by operationId, typed by the generated `operations` (a handler for an
 * operation that does not exist fails to compile). Every operation must have one: a contract operation without a
 * handler stops the start, naming it, rather than answering 501 at run time.
 */

import type { NextFunction, Request, RequestHandler, Response } from "express";
import { waitsForAdmission } from "../domain/idempotency/write-handler.ts";
import { entityTagOf, listsTag } from "../domain/preconditions.ts";
import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import { requestTrace, type TraceContext } from "../lib/trace-context.ts";
import type { Authenticate, Authenticators, Credentials, SecurityScheme } from "./authenticate.ts";
import type { RequestBudget } from "./budget.ts";
import type { ApiRequest, OperationHandlers, OperationId } from "./handler-types.ts";
import { listOperations } from "./openapi-document.ts";
import { numbersAsWritten } from "./storable.ts";

export interface OperationsOptions {
  doc: Record<string, unknown>;
  handlers: OperationHandlers;
  authenticators: Authenticators;
  /** The caller's request budget, after authentication. */
  budget: RequestBudget;
}

/** What express-openapi-validator sets on a request it matched to an operation. */
interface MatchedRequest extends Request {
  openapi?: {
    expressRoute: string;
    pathParams: Record<string, string>;
    schema: { operationId?: string };
  };
}

/** Any operation's reply, as sent. */
interface AnyReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
/** Any operation's handler: each takes its own operation's call, which only this module builds. */
type AnyHandler = (call: never) => Promise<AnyReply>;

interface Steps {
  authenticate: Authenticate | undefined;
  handler: AnyHandler;
  /** A read (GET), or a write that waits for the budget's decision: it may start while the budget is checked. */
  early: boolean;
  /** The query parameters of `type: integer`, written in decimal digits (storable.ts). */
  integers: ReadonlySet<string>;
  /** Whether its success answers carry the object's `ETag`. */
  etag: boolean;
  /** Whether it answers `If-None-Match` with a 304 (domain/preconditions.ts). */
  ifNoneMatch: boolean;
}

/** The two steps of every operation (the file's header): each is an Express middleware. */
export interface OperationSteps {
  authenticate: RequestHandler;
  dispatch: RequestHandler;
}

export function operationSteps(options: OperationsOptions): OperationSteps {
  const operations = listOperations(options.doc);
  const missing = operations.filter((operation) => !options.handlers[operation.operationId as OperationId]);
  if (missing.length > 0) {
    throw new Error(`No handler for ${missing.map((operation) => operation.operationId).join(", ")}`);
  }
  const steps = new Map<string, Steps>();
  for (const operation of operations) {
    const scheme = operation.schemes[0] as SecurityScheme | undefined;
    const authenticator = scheme === undefined ? undefined : options.authenticators[scheme];
    if (scheme !== undefined && !authenticator) throw new Error(`No authenticator for security scheme ${scheme}`);
    const handler = options.handlers[operation.operationId as OperationId] as AnyHandler;
    steps.set(operation.operationId, {
      authenticate: authenticator?.(operation),
      handler,
      early: operation.method === "get" || waitsForAdmission(handler),
      integers: new Set(operation.integerQuery),
      etag: operation.etag,
      ifNoneMatch: operation.ifNoneMatch,
    });
  }

  /** The matched operation's steps; the validator matched nothing it manages: no operation has this path. */
  function matched(req: MatchedRequest): { openapi: NonNullable<MatchedRequest["openapi"]>; operation: Steps } {
    const openapi = req.openapi;
    const operation = openapi?.schema.operationId === undefined ? undefined : steps.get(openapi.schema.operationId);
    if (!openapi || !operation) throw new AppError("ROUTE_NOT_FOUND");
    return { openapi, operation };
  }

  async function authenticate(req: MatchedRequest, res: Response): Promise<void> {
    const { openapi, operation } = matched(req);
    res.locals.route = openapi.expressRoute;
    if (operation.authenticate) res.locals.credentials = await operation.authenticate(req);
  }

  async function serve(req: MatchedRequest, res: Response): Promise<void> {
    const { openapi, operation } = matched(req);
    const checked = { params: openapi.pathParams, query: numbersAsWritten(req, operation.integers), body: req.body };
    const { handler, early } = operation;
    const request = new RequestView(req);
    const credentials = res.locals.credentials;
    // An operation with a security scheme is never served without its caller (a router that skipped `authenticate`).
    if (operation.authenticate && !credentials) throw new AppError("UNAUTHENTICATED");
    let reply: AnyReply;
    const condition = operation.ifNoneMatch ? request.header("if-none-match") : undefined;
    if (credentials && condition !== undefined) {
      const call = new Call(checked, credentials, request, ADMITTED) as never;
      const read = () => handler(call);
      const changed = await readIfChanged(read, condition, credentials.principal, openapi.expressRoute, res);
      if (!changed) return;
      reply = changed;
    } else if (credentials) {
      // The session budget is decided by the route's template: a path's spelling (`/API/…`) cannot skip it.
      const spent = options.budget.spend(credentials.principal, openapi.expressRoute);
      // When the caller's last decision left room (budget.ts), a read, or a write that takes no effect before the
      // decision (domain/idempotency/write-handler.ts), starts while the budget is checked: its answer waits for the decision, and is dropped
      // if the budget refuses.
      let started: Promise<AnyReply> | undefined;
      if (early && options.budget.hasRoom(credentials.principal)) {
        const admitted = spent.then(() => undefined);
        admitted.catch(() => undefined); // answered below, through `spent`
        started = handler(new Call(checked, credentials, request, admitted) as never);
        started.catch(() => undefined); // dropped if the budget refuses; else awaited below
      }
      const headers = await spent;
      if (headers) res.set(headers);
      reply = await (started ?? handler(new Call(checked, credentials, request, ADMITTED) as never));
    } else {
      reply = await handler(new Call(checked, undefined, request, ADMITTED) as never);
    }
    send(res, reply, operation.etag);
  }

  /**
   * A read with `If-None-Match` (domain/preconditions.ts), read before the budget is asked: a 304 (sent here, then
   * undefined) spends nothing of it, any other answer one request, an error too. A caller without room in its budget
   * is refused before anything is read, as it would be without the condition.
   */
  async function readIfChanged(
    read: () => Promise<AnyReply>,
    condition: string,
    principal: Principal,
    route: string,
    res: Response,
  ): Promise<AnyReply | undefined> {
    if (!options.budget.hasRoom(principal)) await options.budget.spend(principal, route, true);
    let reply: AnyReply;
    try {
      reply = await read();
    } catch (error) {
      const headers = await options.budget.spend(principal, route);
      if (headers) res.set(headers);
      throw error;
    }
    const tag = entityTagOf(reply.body);
    const unchanged = tag !== undefined && listsTag(condition, tag, true);
    const headers = await options.budget.spend(principal, route, unchanged);
    if (headers) res.set(headers);
    if (!unchanged) return reply;
    res.status(304).set("ETag", tag).end();
    return undefined;
  }

  return {
    authenticate: function authenticateOperation(req: Request, res: Response, next: NextFunction): void {
      authenticate(req, res).then(() => next(), next);
    },
    dispatch: function dispatchOperation(req: Request, res: Response, next: NextFunction): void {
      serve(req, res).catch(next);
    },
  };
}

/** The admission of a call whose budget was decided before its handler started, or that has none. */
const ADMITTED = Promise.resolve();

/** What a handler is given: the checked parts of the request, who calls, and the request itself. */
class Call {
  readonly params: Record<string, string>;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly session: Credentials["session"];
  readonly request: ApiRequest;
  readonly admitted: Promise<void>;
  readonly #principal: Principal | undefined;
  constructor(
    checked: { params: Record<string, string>; query: Record<string, unknown>; body: unknown },
    credentials: Credentials | undefined,
    request: ApiRequest,
    admitted: Promise<void>,
  ) {
    this.admitted = admitted;
    this.params = checked.params;
    this.query = checked.query;
    this.body = checked.body;
    this.session = credentials?.session;
    this.#principal = credentials?.principal;
    this.request = request;
  }
  get principal(): Principal {
    if (!this.#principal) throw new AppError("UNAUTHENTICATED");
    return this.#principal;
  }
}

class RequestView implements ApiRequest {
  readonly #req: Request;
  #closed: AbortController | undefined;
  #trace: TraceContext | undefined;
  constructor(req: Request) {
    this.#req = req;
  }
  get id(): string {
    return (this.#req.res?.locals.requestId as string | undefined) ?? "";
  }
  get closed(): AbortSignal {
    if (!this.#closed) {
      const controller = new AbortController();
      this.#closed = controller;
      this.#req.res?.once("close", () => controller.abort());
    }
    return this.#closed.signal;
  }
  get method(): string {
    return this.#req.method;
  }
  get path(): string {
    return this.#req.originalUrl.split("?")[0] ?? "";
  }
  /** Express's `req.ip`: through the proxies that `trust proxy` (TRUST_PROXY) trusts. */
  get clientIp(): string | undefined {
    return this.#req.ip;
  }
  /** Read on first use (a write that records events): a request that causes nothing costs no parse. */
  get trace(): TraceContext {
    this.#trace ??= requestTrace(this.#req.headers);
    return this.#trace;
  }
  header(name: string): string | undefined {
    const value = this.#req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }
}

/**
 * A reply as the contract types it: a JSON body through `res.json` (validated there outside production), or none;
 * with the object's `ETag` where the operation declares one.
 */
function send(res: Response, reply: AnyReply, etag: boolean): void {
  res.status(reply.status);
  if (reply.headers) res.set(reply.headers);
  if (etag && reply.status < 300) {
    const tag = entityTagOf(reply.body);
    if (tag !== undefined) res.set("ETag", tag);
  }
  if (reply.status === 201 && !res.hasHeader("location"))
    res.set("Location", createdAt(res.req.originalUrl, reply.body));
  if (reply.status === 204 || reply.body === undefined) res.end();
  else res.json(reply.body);
}

/**
 * Where the object a `POST` to a collection made lives (RFC 9110 §10.2.2): the collection's path and the object's id.
 * A handler whose new object lives elsewhere (a rotated key) sets `Location` itself.
 */
function createdAt(url: string, body: unknown): string {
  const path = url.split("?", 1)[0] as string;
  return `${path.replace(/\/+$/, "")}/${encodeURIComponent((body as { id: string }).id)}`;
}
