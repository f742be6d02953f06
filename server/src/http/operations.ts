/**
 * Routes every operation of the contract: the paths and methods come from the OpenAPI document, the handlers
 * from a table keyed by operationId (typed by the generated `operations`, so a handler for an operation that
 * does not exist fails to compile). An operation without a handler answers 501 `NOT_IMPLEMENTED`.
 */
import type { operations } from "@service/sdk/schema";
import express, { type RequestHandler, type Router } from "express";
import { listOperations, toExpressPath } from "../ops/openapi-document.ts";
import type { Authenticators, SecurityScheme } from "./authenticate.ts";
import { AppError } from "./errors.ts";

export type OperationId = keyof operations;
export type OperationHandlers = Partial<Record<OperationId, RequestHandler>>;

function notImplemented(operationId: string): RequestHandler {
  return function notImplementedHandler() {
    throw new AppError("NOT_IMPLEMENTED", { detail: `${operationId} is in the contract but not available yet.` });
  };
}

export function operationsRouter(options: {
  doc: Record<string, unknown>;
  handlers: OperationHandlers;
  authenticators: Authenticators;
}): Router {
  const router = express.Router();
  for (const operation of listOperations(options.doc)) {
    const scheme = operation.schemes[0] as SecurityScheme | undefined;
    const chain: RequestHandler[] = [];
    if (scheme !== undefined) {
      const authenticator = options.authenticators[scheme];
      if (!authenticator) throw new Error(`No authenticator for security scheme ${scheme}`);
      chain.push(authenticator(operation));
    }
    chain.push(options.handlers[operation.operationId as OperationId] ?? notImplemented(operation.operationId));
    router[operation.method](toExpressPath(operation.path), ...chain);
  }
  return router;
}
