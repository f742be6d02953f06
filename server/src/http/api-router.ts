/**
 * The contract's operations (`/v1`, `/api`) as one Express router, in the order a request meets them:
 *
 *   security headers (helmet) → the JSON body (express.json, with the body limit: 413 and malformed JSON answer
 *   first) → what PostgreSQL cannot store (storable.ts) → express-openapi-validator (the generated 3.1 document:
 *   404, 405 with Allow, 415, 400 naming the field; the replies too, outside production) → the operation
 *   (dispatch.ts: authentication, the budget, the handler)
 *
 * Errors of every step go on to the app's error handler (error-handler.ts), which writes problem+json.
 */
import express, { type NextFunction, type Request, type Response, Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import helmet from "helmet";
import { startSpan } from "../lib/trace-context.ts";
import { AJV_FORMATS, OWN_FORMATS } from "./contract-formats.ts";
import { type OperationsOptions, operationDispatcher } from "./dispatch.ts";
import { perItemBodies } from "./schema-check.ts";
import { keepQueryText, refuseUnstorable } from "./storable.ts";

export interface ApiRouterOptions extends OperationsOptions {
  bodyLimitBytes: number;
  /** Check every reply against the contract (tests and development; not production, as the validator advises). */
  validateResponses: boolean;
}

/** The paths of the contract's operations: everything else is the probes', the reference's or the console's. */
export const API_PATHS = ["/v1", "/api"];

export function apiRouter(options: ApiRouterOptions): Router {
  const router = Router();
  router.use(
    helmet({
      // An API answer is JSON for a program: nothing in it may load, run or be framed (it is never a page).
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      referrerPolicy: { policy: "no-referrer" },
      xFrameOptions: { action: "deny" },
      // Cross-origin isolation headers describe documents; an API answer is none.
      crossOriginEmbedderPolicy: false,
      crossOriginOpenerPolicy: false,
      crossOriginResourcePolicy: false,
      originAgentCluster: false,
      strictTransportSecurity: false,
      // Nor do these old browsers' switches for HTML pages and their downloads (IE8's X-Download-Options, Flash's
      // cross-domain policies, DNS prefetching, the retired XSS auditor): OWASP's REST security guidance asks an API
      // for the headers above and none of these. X-Content-Type-Options is on every answer already (request-context.ts),
      // and Express's X-Powered-By is off (app.ts).
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
      xContentTypeOptions: false,
      xPoweredBy: false,
    }),
    noStore,
  );
  // strict: only objects and arrays, as every body of the contract is an object.
  router.use(
    express.json({ limit: options.bodyLimitBytes, strict: true, type: ["application/json", "application/*+json"] }),
  );
  router.use(storable(perItemBodies(options.doc)));
  router.use(validationSpan);
  router.use(
    OpenApiValidator.middleware({
      apiSpec: options.doc as never,
      validateRequests: { allowUnknownQueryParameters: false, allErrors: true },
      validateResponses: options.validateResponses ? { removeAdditional: false } : false,
      // Authentication is ours (authenticate.ts): 401s with WWW-Authenticate, scopes, the CSRF check.
      validateSecurity: false,
      // No operation takes a file.
      fileUploader: false,
      // The contract's formats, as every other check of it reads them (contract-formats.ts): ajv-formats in full mode,
      // and RFC 3339 date-times that PostgreSQL's timestamptz can hold.
      ajvFormats: AJV_FORMATS,
      formats: OWN_FORMATS,
    }),
  );
  router.use(validated);
  router.use(operationDispatcher(options));
  return router;
}

const VALIDATION_SPAN = Symbol("validation span");

/**
 * The contract check's span, when OpenTelemetry runs (the Express instrumentation sees middleware, not what they
 * decide): it ends when the check passes, or with the answer of a request it refused.
 */
function validationSpan(req: Request, res: Response, next: NextFunction): void {
  const span = startSpan("openapi.validate");
  if (span) {
    let open = true;
    const end = (failed: boolean) => {
      if (open) span.end(failed);
      open = false;
    };
    (req as unknown as Record<symbol, unknown>)[VALIDATION_SPAN] = end;
    res.once("close", () => end(true));
  }
  next();
}

function validated(req: Request, _res: Response, next: NextFunction): void {
  (req as unknown as Record<symbol, ((failed: boolean) => void) | undefined>)[VALIDATION_SPAN]?.(false);
  next();
}

/**
 * Answers of the API and the account endpoints are one caller's data, some with secrets (a new key, a webhook
 * secret, the session's CSRF token): no cache along the way may keep them (RFC 9111 §5.2.2.5).
 */
function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("Cache-Control", "no-store");
  next();
}

/**
 * What JSON and RFC 3339 allow but PostgreSQL cannot store: a 400 before the contract check (storable.ts), except in
 * the items of a batch (`perItem`: path → field), which are checked one by one.
 */
function storable(perItem: ReadonlyMap<string, string>) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    // Express 5's `req.query` is a getter that parses the query string again on every read: it is read once here and
    // kept as the request's own value, which the validator (that coerces it) and the handler read after.
    const query = req.query as Record<string, unknown>;
    Object.defineProperty(req, "query", { value: query, writable: true, configurable: true, enumerable: true });
    refuseUnstorable(query, req.body, req.method === "POST" ? perItem.get(req.baseUrl + req.path) : undefined);
    keepQueryText(req, query);
    next();
  };
}
