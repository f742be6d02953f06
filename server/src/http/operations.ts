/**
 * Routes every operation of the contract: the paths and methods come from the OpenAPI document, the handlers
 * from a table keyed by operationId (typed by the generated `operations`, so a handler for an operation that
 * does not exist fails to compile). Every operation must have one: a contract operation without a handler stops
 * the start, naming it, rather than answering 501 at run time.
 */
import express, { type RequestHandler, type Router } from "express";
import type { Authenticators, SecurityScheme } from "./authenticate.ts";
import type { OperationId } from "./handler-types.ts";
import { listOperations, toExpressPath } from "./openapi-document.ts";

export type OperationHandlers = Partial<Record<OperationId, RequestHandler>>;

export function operationsRouter(options: {
  doc: Record<string, unknown>;
  handlers: OperationHandlers;
  authenticators: Authenticators;
}): Router {
  const router = express.Router();
  const operations = listOperations(options.doc);
  const missing = operations.filter((operation) => !options.handlers[operation.operationId as OperationId]);
  if (missing.length > 0) {
    throw new Error(`No handler for ${missing.map((operation) => operation.operationId).join(", ")}`);
  }
  for (const operation of operations) {
    const scheme = operation.schemes[0] as SecurityScheme | undefined;
    const chain: RequestHandler[] = [];
    if (scheme !== undefined) {
      const authenticator = options.authenticators[scheme];
      if (!authenticator) throw new Error(`No authenticator for security scheme ${scheme}`);
      chain.push(authenticator(operation));
    }
    chain.push(options.handlers[operation.operationId as OperationId] as RequestHandler);
    router[operation.method](toExpressPath(operation.path), ...chain);
  }
  return router;
}
