/**
 * The start of every request: its id (`Request-Id` on every response, RFC-less but what Stripe and others do), a
 * child logger, the headers every answer carries, and one access-log line with the duration when the response
 * finishes: `requestContext`, the app's first middleware, sets `res.locals.requestId` and `res.locals.log`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { newId } from "../lib/ids.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { Credentials } from "./authenticate.ts";

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      log: Logger;
      /** The route template once the request is matched to an operation: the metric's label, never the raw path. */
      route?: string;
      /** Who calls, once the operation's security scheme admitted the request (dispatch.ts). */
      credentials?: Credentials;
      /** A HEAD request, checked and served as the GET it mirrors (api-router.ts). */
      head?: boolean;
    }
  }
}

/**
 * A request's id and logger. A class, not an object literal with a getter: V8 gives each literal whose accessor is a
 * new closure a hidden class of its own, allocated in the old generation, and that old object kept the closure's scope
 * (the request, its response and their rows) alive through every young-generation collection until the next full
 * one: about 5 KB of every request was promoted and collected by mark-compacts (docs/performance.md, 2026-11-28).
 */
class RequestContext {
  #child: Logger | undefined;
  readonly requestId: string;
  readonly #logger: Logger;
  constructor(requestId: string, logger: Logger) {
    this.requestId = requestId;
    this.#logger = logger;
  }
  /** A logger whose lines carry the request id (made on first use: most requests log just the access line). */
  get log(): Logger {
    this.#child ??= this.#logger.child({ request_id: this.requestId });
    return this.#child;
  }
}

/** Opens the context of a request whose path (without the query) is `path`. */
export type OpenRequest = (req: IncomingMessage, res: ServerResponse, path: string) => RequestContext;

/** The probes of load balancers and orchestrators: polled every few seconds, they log only when their answer changes. */
const PROBE_PATHS = new Set(["/health", "/ready"]);

export function requestContexts(options: { logger: Logger; metrics: Metrics }): OpenRequest {
  // The access line's fields are fixed and carry no secret (the path has no query string; ids are not secrets), so
  // it skips the redaction that every other line gets, whose walk over the redaction paths would run on every request.
  const accessLog = options.logger.child({}, { redact: [] });
  const lastProbeStatus = new Map<string, number>();
  return function openRequest(req, res, path) {
    const started = process.hrtime.bigint();
    const requestId = newId("request");
    const context = new RequestContext(requestId, options.logger);
    res.setHeader("Request-Id", requestId);
    // Every answer is exactly the type it declares: no browser may sniff a JSON error or a key into HTML.
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The operations name their template once matched (dispatch.ts); Express's own routes on the request.
      const locals = (res as Partial<Response>).locals;
      // A request the validator refused still has the route it matched.
      const matched = (req as { openapi?: { expressRoute?: string } }).openapi?.expressRoute;
      // An empty template ("" from the validator for a path it does not know) is no route either.
      const route =
        locals?.route || matched || ((req as Partial<Request>).route?.path as string | undefined) || "unmatched";
      options.metrics.httpDuration.observe(
        { method: req.method ?? "", route, status: String(res.statusCode) },
        seconds,
      );
      const line = {
        request_id: requestId,
        method: req.method,
        path,
        route,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1000),
      };
      if (!PROBE_PATHS.has(path)) return accessLog.info(line, "request");
      // A probe is logged at info when its answer differs from the last one (ready → 503 while draining), else at
      // debug: a balancer's checks every 2 s would otherwise be most of the log.
      const changed = lastProbeStatus.get(path) !== res.statusCode;
      lastProbeStatus.set(path, res.statusCode);
      if (changed) accessLog.info(line, "request");
      else accessLog.debug(line, "request");
    });
    return context;
  };
}

/** The context as the app's first middleware: `res.locals.requestId`, `.log`. */
export function requestContext(open: OpenRequest) {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const context = open(req, res, req.path);
    res.locals.requestId = context.requestId;
    Object.defineProperty(res.locals, "log", { get: () => context.log, configurable: true });
    next();
  };
}
