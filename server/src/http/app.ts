/**
 * `createApp(deps)` builds the server's request listener and never listens: `service.ts` does that.
 *
 * Requests of the API and the account endpoints (`/v1/`, `/api/`) are the contract's operations, served by
 * operations.ts from node:http; every other path goes to Express: the probes, the reference, the console's pages
 * and assets, then a 404. Both open the same request context (request id, headers, access log) and answer errors
 * with the same problem+json.
 */
import type { RequestListener } from "node:http";
import express from "express";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { type ConsoleBuild, consoleRouter } from "../ops/console.ts";
import type { Metrics } from "../ops/metrics.ts";
import { opsRouter, type ReadinessCheck } from "../ops/ops.routes.ts";
import { isApiPath } from "./api-paths.ts";
import type { Authenticators } from "./authenticate.ts";
import type { RequestBudget } from "./budget.ts";
import { compileContract } from "./contract-requests.ts";
import { compileResponseCheck } from "./contract-responses.ts";
import { errorHandler, notFoundHandler } from "./error-handler.ts";
import type { OperationHandlers } from "./handler-types.ts";
import type { OpenApiDocument } from "./openapi-document.ts";
import { contractOperations } from "./operations.ts";
import { requestContext, requestContexts } from "./request-context.ts";
import { isStorableDateTime } from "./storable.ts";

export interface AppDeps {
  config: Pick<Config, "trustProxy" | "bodyLimitBytes" | "validateResponses">;
  logger: Logger;
  metrics: Metrics;
  openapi: OpenApiDocument;
  readiness: ReadinessCheck[];
  handlers: OperationHandlers;
  authenticators: Authenticators;
  /** The request budget of an authenticated caller (`budget.ts`). */
  budget: RequestBudget;
  isShuttingDown?: () => boolean;
  /** The developer console's build, served at `/` (absent: not built, and `/` stays a 404). */
  console?: ConsoleBuild | undefined;
}

export function createApp(deps: AppDeps): RequestListener {
  const openRequest = requestContexts({ logger: deps.logger, metrics: deps.metrics });
  const { doc } = deps.openapi;
  // RFC 3339 date-times that PostgreSQL's timestamptz can hold (storable.ts): year 0000 or an offset beyond ±15:59 is
  // a 400 naming the field, not a 500 from the database.
  const formats = { "date-time": isStorableDateTime };
  const serveOperation = contractOperations({
    doc,
    contract: compileContract(doc, { formats }),
    handlers: deps.handlers,
    authenticators: deps.authenticators,
    budget: deps.budget,
    checkResponse: deps.config.validateResponses ? compileResponseCheck(doc, { formats }) : undefined,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
  });

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.trustProxy);
  app.set("etag", false);
  app.use(requestContext(openRequest));
  app.use(
    opsRouter({
      openapi: deps.openapi,
      readiness: deps.readiness,
      isShuttingDown: deps.isShuttingDown ?? (() => false),
    }),
  );
  if (deps.console) app.use(consoleRouter(deps.console));
  app.use(notFoundHandler());
  app.use(errorHandler());

  return function listener(req, res) {
    const url = req.url ?? "/";
    const mark = url.indexOf("?");
    const path = mark === -1 ? url : url.slice(0, mark);
    if (!isApiPath(path)) {
      app(req, res);
      return;
    }
    serveOperation(req, res, openRequest(req, res, path), path, mark === -1 ? "" : url.slice(mark + 1));
  };
}
