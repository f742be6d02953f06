/**
 * Runs every operation of the contract: the handlers come from a table keyed by operationId (typed by the
 * generated `operations`, so a handler for an operation that does not exist fails to compile). Every operation
 * must have one: a contract operation without a handler stops the start, naming it, rather than answering 501 at
 * run time.
 *
 * The contract check (contract-requests.ts) has already matched the request to its operation (an unknown path is its 404, a wrong method its
 * 405), so this dispatches by that operationId in one look-up, instead of walking an Express route per operation
 * and matching each one's pattern again.
 *
 * Chain of an operation: its authenticator (from its security scheme), the request budget of the caller, then the
 * handler, whose typed reply is sent here.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import type { Authenticators, SecurityScheme } from "./authenticate.ts";
import type { OperationHandlers, OperationId } from "./handler-types.ts";
import { listOperations } from "./openapi-document.ts";

/** What the contract check sets on a request that matches an operation of the contract. */
export interface MatchedRequest extends Request {
  openapi?: { expressRoute: string; pathParams: Record<string, string>; schema: { operationId?: string } };
}

export function operationsDispatch(options: {
  doc: Record<string, unknown>;
  handlers: OperationHandlers;
  authenticators: Authenticators;
  /** The caller's request budget, after authentication. */
  budget: RequestHandler;
  /** Whether responses are checked (express-openapi-validator, in tests): it sees them through `res.json`. */
  validateResponses: boolean;
}): RequestHandler {
  const operations = listOperations(options.doc);
  const missing = operations.filter((operation) => !options.handlers[operation.operationId as OperationId]);
  if (missing.length > 0) {
    throw new Error(`No handler for ${missing.map((operation) => operation.operationId).join(", ")}`);
  }
  const chains = new Map<string, RequestHandler>();
  for (const operation of operations) {
    const scheme = operation.schemes[0] as SecurityScheme | undefined;
    const chain: RequestHandler[] = [];
    if (scheme !== undefined) {
      const authenticator = options.authenticators[scheme];
      if (!authenticator) throw new Error(`No authenticator for security scheme ${scheme}`);
      chain.push(authenticator(operation), options.budget);
    }
    chain.push(
      toExpress(options.handlers[operation.operationId as OperationId] as AnyHandler, options.validateResponses),
    );
    chains.set(operation.operationId, inSequence(chain));
  }
  return function dispatchOperation(req: Request, res: Response, next: NextFunction): void {
    const matched = (req as MatchedRequest).openapi;
    const operationId = matched?.schema.operationId;
    const chain = operationId === undefined ? undefined : chains.get(operationId);
    if (matched === undefined || chain === undefined) {
      next();
      return;
    }
    // Express gives every middleware its own (here empty) params: the operation's are the contract check's.
    req.params = matched.pathParams;
    chain(req, res, next);
  };
}

/**
 * Middleware run one after another as Express would run them: `next()` goes on, `next(error)`, a throw or a
 * rejected promise goes to `done` with the error, and the end of the chain goes to `done()`.
 */
function inSequence(chain: RequestHandler[]): RequestHandler {
  return function runChain(req: Request, res: Response, done: NextFunction): void {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      const handler = chain[index++];
      if (handler === undefined) {
        done();
        return;
      }
      try {
        const result = handler(req, res, step) as unknown;
        if (result instanceof Promise) result.catch((reason: unknown) => done(reason ?? new Error("Rejected promise")));
      } catch (thrown) {
        done(thrown);
      }
    };
    step();
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

/**
 * The one place where a request becomes a typed call: the contract check has already checked params, query and body
 * against the operation, so their contract types hold here.
 */
function toExpress(handler: AnyHandler, validateResponses: boolean): RequestHandler {
  return async function operation(req: Request, res: Response, _next: NextFunction): Promise<void> {
    const call = {
      params: req.params,
      query: req.query,
      body: req.body,
      req,
      res,
      get principal(): Principal {
        const principal = res.locals.principal;
        if (!principal) throw new AppError("UNAUTHENTICATED");
        return principal;
      },
    };
    send(res, await handler(call as never), validateResponses);
  };
}

function send(res: Response, reply: AnyReply, validateResponses: boolean): void {
  res.statusCode = reply.status;
  if (reply.headers) for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  if (reply.status === 204 || reply.body === undefined) res.end();
  // Checked responses (tests, development) pass through res.json, where the response validator sees them.
  else if (validateResponses) res.json(reply.body);
  else {
    // The same answer without res.json's detours: it turned every body over 1,000 characters into a Buffer copy
    // (a page of leads is 5 KB) and checked request freshness, which no API answer uses (ETags are off). Node sets
    // Content-Length from the string.
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(JSON.stringify(reply.body));
  }
}
