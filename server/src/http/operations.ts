/**
 * Serves every operation of the contract straight from node:http, without Express (which serves the rest: the
 * probes, the reference, the console). Per request: the JSON body (body-parser, as `express.json` reads it), the
 * refusal of what cannot be stored (storable.ts), the contract's check (contract-requests.ts: 404, 405, 415, 400),
 * the operation's authenticator (from its security scheme), the caller's request budget, then the handler, whose
 * typed reply is sent here, checked against the contract first in tests and development (contract-responses.ts).
 * A read, or a write that takes no effect before the budget admits it (write.ts), starts while the budget is checked
 * if the caller's last decision left room (budget.ts): one round trip less, and nothing written or read for a caller
 * over its budget.
 * Anything thrown on the way leaves as problem+json (error-handler.ts).
 *
 * Express cost a `GET /v1/leads` about a fifth of its CPU time for what these operations never use (its router's
 * walk, a prototype swap per request and a promise per middleware), so the steps are plain calls in one async
 * function.
 *
 * The handlers come from a table keyed by operationId, typed by the generated `operations` (a handler for an
 * operation that does not exist fails to compile). Every operation must have one: a contract operation without a
 * handler stops the start, naming it, rather than answering 501 at run time.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import bodyParser from "body-parser";
import proxyAddr from "proxy-addr";
import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import type { Authenticate, Authenticators, Credentials, SecurityScheme } from "./authenticate.ts";
import type { RequestBudget } from "./budget.ts";
import type { CompiledContract } from "./contract-requests.ts";
import type { CheckResponse } from "./contract-responses.ts";
import { answerError } from "./error-handler.ts";
import type { ApiRequest, OperationHandlers, OperationId } from "./handler-types.ts";
import { listOperations } from "./openapi-document.ts";
import type { RequestContext } from "./request-context.ts";
import { refuseUnstorable } from "./storable.ts";
import { waitsForAdmission } from "./write.ts";

export interface OperationsOptions {
  doc: Record<string, unknown>;
  contract: CompiledContract;
  handlers: OperationHandlers;
  authenticators: Authenticators;
  /** The caller's request budget, after authentication. */
  budget: RequestBudget;
  /** Checks each answer against the contract (tests, development); absent in production. */
  checkResponse: CheckResponse | undefined;
  bodyLimitBytes: number;
  /** Express's `trust proxy` setting, for the client's address. */
  trustProxy: boolean | number | string;
}

/** Serves a request of the API whose path is `path` and query string `search` (without the `?`). */
export type ServeOperation = (
  req: IncomingMessage,
  res: ServerResponse,
  context: RequestContext,
  path: string,
  search: string,
) => void;

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
}

export function contractOperations(options: OperationsOptions): ServeOperation {
  const operations = listOperations(options.doc);
  const missing = operations.filter((operation) => !options.handlers[operation.operationId as OperationId]);
  if (missing.length > 0) {
    throw new Error(`No handler for ${missing.map((operation) => operation.operationId).join(", ")}`);
  }
  const steps = new Map<unknown, Steps>();
  for (const operation of operations) {
    const scheme = operation.schemes[0] as SecurityScheme | undefined;
    const authenticator = scheme === undefined ? undefined : options.authenticators[scheme];
    if (scheme !== undefined && !authenticator) throw new Error(`No authenticator for security scheme ${scheme}`);
    const handler = options.handlers[operation.operationId as OperationId] as AnyHandler;
    steps.set(operation.operationId, {
      authenticate: authenticator?.(operation),
      handler,
      early: operation.method === "get" || waitsForAdmission(handler),
    });
  }
  // strict: only objects and arrays, as every body of the contract is an object.
  const parseJson = bodyParser.json({
    limit: options.bodyLimitBytes,
    strict: true,
    type: ["application/json", "application/*+json"],
  });
  const trust = compileTrust(options.trustProxy);
  const { contract, checkResponse } = options;

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    context: RequestContext,
    path: string,
    search: string,
  ) {
    const body = await readBody(parseJson, req, res);
    const query = parseQuery(search);
    refuseUnstorable(query, body);
    const { operation, pathParams } = contract.match(req.method ?? "", path);
    context.route = operation.expressRoute;
    const checked = { headers: req.headers, query, params: pathParams, body };
    contract.check(operation, checked);
    const { authenticate, handler, early } = steps.get(operation.schema.operationId) as Steps;
    const request = new RequestView(req, path, trust);
    let reply: AnyReply;
    if (authenticate) {
      const credentials = await authenticate(req);
      // The session budget is decided by the route's template: a path's spelling (`/API/…`) cannot skip it.
      const spent = options.budget.spend(credentials.principal, operation.expressRoute);
      // When the caller's last decision left room (budget.ts), a read, or a write that takes no effect before the
      // decision (write.ts), starts while the budget is checked: its answer waits for the decision, and is dropped
      // if the budget refuses.
      let started: Promise<AnyReply> | undefined;
      if (early && options.budget.hasRoom(credentials.principal)) {
        const admitted = spent.then(() => undefined);
        admitted.catch(() => undefined); // answered below, through `spent`
        started = handler(new Call(checked, credentials, request, admitted) as never);
        started.catch(() => undefined); // dropped if the budget refuses; else awaited below
      }
      const headers = await spent;
      if (headers) for (const name in headers) res.setHeader(name, headers[name] as string);
      reply = await (started ?? handler(new Call(checked, credentials, request, ADMITTED) as never));
    } else {
      reply = await handler(new Call(checked, undefined, request, ADMITTED) as never);
    }
    checkResponse?.(operation, reply.status, reply.body);
    send(res, reply);
  }

  return function serveOperation(req, res, context, path, search) {
    serve(req, res, context, path, search).catch((error: unknown) => {
      try {
        answerError(res, context, error);
      } catch (failure) {
        // Not even the problem could be written (a header Node refuses, say): this connection ends, the process
        // goes on (a rejection left unhandled here would end it).
        context.log.error({ err: failure, error }, "the error answer failed");
        res.destroy();
      }
    });
  };
}

/** The body as body-parser reads it: undefined without one (or of a type it does not parse, which the check refuses). */
function readBody(parse: ReturnType<typeof bodyParser.json>, req: IncomingMessage, res: ServerResponse) {
  return new Promise<unknown>((resolve, reject) => {
    parse(req as never, res as never, (error?: unknown) => {
      if (error) reject(error);
      else resolve((req as IncomingMessage & { body?: unknown }).body);
    });
  });
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
  readonly #req: IncomingMessage;
  readonly #trust: ReturnType<typeof compileTrust>;
  readonly path: string;
  constructor(req: IncomingMessage, path: string, trust: ReturnType<typeof compileTrust>) {
    this.#req = req;
    this.#trust = trust;
    this.path = path;
  }
  get method(): string {
    return this.#req.method ?? "";
  }
  get clientIp(): string | undefined {
    return proxyAddr(this.#req, this.#trust);
  }
  header(name: string): string | undefined {
    const value = this.#req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }
}

/** Express's reading of `trust proxy` (its utils.compileTrust), so that the client's address is the one it gave. */
function compileTrust(value: boolean | number | string): (address: string, hop: number) => boolean {
  if (value === true) return () => true;
  if (typeof value === "number") return (_address, hop) => hop < value;
  if (typeof value === "string") return proxyAddr.compile(value.split(",").map((entry) => entry.trim()));
  return proxyAddr.compile([]);
}

function send(res: ServerResponse, reply: AnyReply): void {
  res.statusCode = reply.status;
  if (reply.headers) for (const name in reply.headers) res.setHeader(name, reply.headers[name] as string);
  if (reply.status === 204 || reply.body === undefined) {
    res.end();
    return;
  }
  // Node sets Content-Length from the string.
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.end(JSON.stringify(reply.body));
}
