/**
 * The contract's operations (`/v1`, `/api`) as one Express router, in the order a request meets them:
 *
 *   security headers (helmet) → HEAD read as the GET it mirrors → express-openapi-validator's route match (404, 405
 *   with Allow: nobody needs credentials to learn that a path or method does not exist) → authentication and scope
 *   (dispatch.ts: 401, 403, whatever the body holds) → the JSON body (express.json: 413, malformed JSON or UTF-8, 415
 *   for a content coding) → what PostgreSQL cannot store (storable.ts) → the validator's contract check (415, 400
 *   naming the field; the replies too, outside production) → the operation (dispatch.ts: the budget, the handler)
 *
 * The validator's middlewares run in their own order, all of them, on every request: ours stand where its own
 * security check stands (between its route match and its request check), which is off because authentication is ours
 * (authenticate.ts: 401s with WWW-Authenticate, scopes, the CSRF check). Errors of every step go on to the app's error
 * handler (error-handler.ts), which writes problem+json.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import helmet from "helmet";
import { startSpan } from "../lib/trace-context.ts";
import { AJV_FORMATS, OWN_FORMATS } from "./contract-formats.ts";
import { type OperationsOptions, operationSteps } from "./dispatch.ts";
import { perItemBodies } from "./schema-check.ts";
import { keepQueryText, markMalformedUtf8, refuseUnstorable } from "./storable.ts";

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
    headAsGet,
  );
  const validator = splitValidator(
    OpenApiValidator.middleware({
      apiSpec: options.doc as never,
      validateRequests: { allowUnknownQueryParameters: false, allErrors: true },
      validateResponses: options.validateResponses ? { removeAdditional: false } : false,
      // Authentication is ours, in the security check's place (the file's header).
      validateSecurity: false,
      // No operation takes a file.
      fileUploader: false,
      // The contract's formats, as every other check of it reads them (contract-formats.ts): ajv-formats in full mode,
      // and RFC 3339 date-times that PostgreSQL's timestamptz can hold.
      ajvFormats: AJV_FORMATS,
      formats: OWN_FORMATS,
    }),
  );
  const steps = operationSteps(options);
  router.use(validationSpan, ...validator.route, steps.authenticate);
  router.use(
    express.json({
      limit: options.bodyLimitBytes,
      // strict: only objects and arrays, as every body of the contract is an object.
      strict: true,
      type: ["application/json", "application/*+json"],
      // No content coding: the documents declare none, so a coded body is a 415 (RFC 9110 §15.5.16), not a body that
      // fails to decode with a bare 400.
      inflate: false,
      verify: markMalformedUtf8,
    }),
  );
  router.use(storable(perItemBodies(options.doc)), ...validator.check, validated, steps.dispatch);
  return router;
}

/**
 * The validator's middlewares in two parts: its route match (the operation on `req.openapi`, 404, 405), and the rest
 * (its request check, the replies' check). Found by their names: a version that renames them stops the start.
 */
function splitValidator(middlewares: RequestHandler[]): { route: RequestHandler[]; check: RequestHandler[] } {
  const at = middlewares.findIndex((middleware) => middleware.name === "metadataMiddleware");
  if (at < 0) throw new Error("express-openapi-validator has no metadataMiddleware: check its version (api-router.ts)");
  return { route: middlewares.slice(0, at + 1), check: middlewares.slice(at + 1) };
}

/**
 * HEAD is GET without the content (RFC 9110 §9.3.2): checked, authenticated and answered as the GET of its path, and
 * Node writes no body for it. The documents list GET only (a HEAD operation beside each would be noise); the guide
 * says that every GET also answers HEAD.
 */
function headAsGet(req: Request, res: Response, next: NextFunction): void {
  if (req.method === "HEAD") {
    req.method = "GET";
    res.locals.head = true;
  }
  next();
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

function validated(req: Request, res: Response, next: NextFunction): void {
  (req as unknown as Record<symbol, ((failed: boolean) => void) | undefined>)[VALIDATION_SPAN]?.(false);
  // The handler, the access log and the metrics see the method the client sent.
  if (res.locals.head) req.method = "HEAD";
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
    refuseUnstorable(query, req.body, req.method === "POST" ? perItem.get(req.baseUrl + req.path) : undefined, req);
    keepQueryText(req, query);
    next();
  };
}
