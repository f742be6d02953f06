/**
 * `createApp(deps)` builds the Express application and never listens: `main.ts` and the tests do that.
 *
 * Order: request context → operational routes → the console's pages and assets → JSON body → contract validation → operation (authentication,
 * handler) → 404 → the one error handler.
 */
import express, { type Express, type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { type ConsoleBuild, consoleRouter } from "../ops/console.ts";
import type { Metrics } from "../ops/metrics.ts";
import { opsRouter, type ReadinessCheck } from "../ops/ops.routes.ts";
import { isApiPath } from "./api-paths.ts";
import type { Authenticators } from "./authenticate.ts";
import { compileContract, contractRequests } from "./contract-requests.ts";
import { errorHandler, notFoundHandler } from "./error-handler.ts";
import type { OperationHandlers } from "./handler-types.ts";
import type { OpenApiDocument } from "./openapi-document.ts";
import { operationsDispatch } from "./operations.ts";
import { requestContext } from "./request-context.ts";
import { cacheRouteRegexps } from "./route-regex-cache.ts";
import { isStorableDateTime, refuseUnstorableInput } from "./storable.ts";

export interface AppDeps {
  config: Pick<Config, "trustProxy" | "bodyLimitBytes" | "validateResponses">;
  logger: Logger;
  metrics: Metrics;
  openapi: OpenApiDocument;
  readiness: ReadinessCheck[];
  handlers: OperationHandlers;
  authenticators: Authenticators;
  /** The request budget of an authenticated caller (`budget.ts`). */
  budget: RequestHandler;
  isShuttingDown?: () => boolean;
  /** The developer console's build, served at `/` (absent: not built, and `/` stays a 404). */
  console?: ConsoleBuild | undefined;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.trustProxy);
  app.set("etag", false);

  app.use(requestContext({ logger: deps.logger, metrics: deps.metrics }));
  app.use(
    outsideTheApi(
      opsRouter({
        openapi: deps.openapi,
        readiness: deps.readiness,
        isShuttingDown: deps.isShuttingDown ?? (() => false),
      }),
    ),
  );
  if (deps.console) app.use(outsideTheApi(consoleRouter(deps.console)));

  // strict: only objects and arrays, as every body of the contract is an object.
  app.use(
    express.json({ limit: deps.config.bodyLimitBytes, strict: true, type: ["application/json", "application/*+json"] }),
  );

  app.use(refuseUnstorableInput());

  // The contract's check of every request, compiled from the document (contract-requests.ts). RFC 3339 date-times
  // that PostgreSQL's timestamptz can hold (storable.ts): year 0000 or an offset beyond ±15:59 is a 400 naming the
  // field, not a 500 from the database.
  const formats = { "date-time": isStorableDateTime };
  app.use(contractRequests(compileContract(deps.openapi.doc, { formats })));
  if (deps.config.validateResponses) {
    // Tests and development check every response against the contract too: express-openapi-validator sees them
    // through res.json (operations.ts sends through it then). Requests are checked above, not again here.
    cacheRouteRegexps();
    app.use(
      OpenApiValidator.middleware({
        // The document's server is `{base_url}`; the validator matches paths from the root.
        apiSpec: { ...deps.openapi.doc, servers: [{ url: "/" }] } as never,
        validateRequests: false,
        validateResponses: true,
        validateSecurity: false,
        fileUploader: false,
        ignoreUndocumented: false,
        formats: { "date-time": { type: "string", validate: formats["date-time"] } },
      }),
    );
  }

  app.use(
    operationsDispatch({
      doc: deps.openapi.doc,
      handlers: deps.handlers,
      authenticators: deps.authenticators,
      budget: deps.budget,
      validateResponses: deps.config.validateResponses,
    }),
  );
  app.use(notFoundHandler());
  app.use(errorHandler());
  return app;
}

/**
 * A router of paths outside `/v1/` and `/api/` (probes, the reference, the console's pages): requests of the API
 * pass it by without walking its routes, none of which could match them.
 */
function outsideTheApi(router: RequestHandler): RequestHandler {
  return function skippedByTheApi(req, res, next) {
    if (isApiPath(req.path)) next();
    else router(req, res, next);
  };
}
