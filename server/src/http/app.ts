/**
 * `createApp(deps)` builds the server's Express app and never listens: `listen.ts` does that.
 *
 * Every request goes through it, in this order: the request context (request id, headers, access log), the contract's
 * operations under `/v1` and `/api` (api-router.ts: helmet, the JSON body, the storable-input check,
 * express-openapi-validator, then authentication, the budget and the operation's handler), the probes and the
 * reference (ops.routes.ts), the console's pages and assets (console.ts), then a 404; errors of every step end in one
 * error handler that writes problem+json.
 */
import express from "express";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { type ConsoleBuild, consoleRouter } from "../ops/console.ts";
import type { Metrics } from "../ops/metrics.ts";
import { opsRouter, type ReadinessCheck } from "../ops/ops.routes.ts";
import { API_PATHS, apiRouter } from "./api-router.ts";
import type { Authenticators } from "./authenticate.ts";
import type { RequestBudget } from "./budget.ts";
import { errorHandler, notFoundHandler } from "./error-handler.ts";
import type { OperationHandlers } from "./handler-types.ts";
import type { OpenApiDocument } from "./openapi-document.ts";
import { requestContext, requestContexts } from "./request-context.ts";

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

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Express's own ETag (a hash of every body) stays off: an object's tag is its id and version (domain/preconditions.ts).
  app.set("etag", false);
  app.set("trust proxy", deps.config.trustProxy);
  // `/v1/leads/` is not a path of the contract: the validator matches routes strictly (its patch passes this setting
  // to path-to-regexp 8 as `trailing: false`), so a trailing slash is a 404 as any other unknown path.
  app.set("strict routing", true);
  app.use(requestContext(requestContexts({ logger: deps.logger, metrics: deps.metrics })));
  // While the process drains (a SIGTERM), every answer asks its client to open its next connection elsewhere.
  const isShuttingDown = deps.isShuttingDown ?? (() => false);
  app.use((_req, res, next) => {
    if (isShuttingDown()) res.setHeader("Connection", "close");
    next();
  });
  app.use(
    API_PATHS,
    apiRouter({
      doc: deps.openapi.doc,
      handlers: deps.handlers,
      authenticators: deps.authenticators,
      budget: deps.budget,
      bodyLimitBytes: deps.config.bodyLimitBytes,
      validateResponses: deps.config.validateResponses,
    }),
  );
  // After the API, which every call of the contract goes through: its requests skip the probes' routes.
  app.use(
    opsRouter({
      openapi: deps.openapi,
      readiness: deps.readiness,
      isShuttingDown,
    }),
  );
  // After the API: the console's page route matches every path, and Express would answer OPTIONS for it.
  if (deps.console) app.use(consoleRouter(deps.console));
  app.use(notFoundHandler());
  app.use(errorHandler());
  return app;
}
