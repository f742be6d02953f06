/**
 * The start of every request: its id (`Request-Id` on every response, RFC-less but what Stripe and others do), a
 * child logger, the headers every answer carries, and one access-log line with the duration when the response
 * finishes. The contract's operations (operations.ts) open it themselves; the routes Express serves get it from
 * `requestContext`, their first middleware.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { newId } from "../lib/ids.ts";
import type { Metrics } from "../ops/metrics.ts";
import { isApiPath } from "./api-paths.ts";

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      log: Logger;
    }
  }
}

export interface RequestContext {
  readonly requestId: string;
  /** A logger whose lines carry the request id (made on first use: most requests log just the access line). */
  readonly log: Logger;
  /** The route template, once the request is matched to one: the metric's label, never the raw path. */
  route: string | undefined;
}

/** Opens the context of a request whose path (without the query) is `path`. */
export type OpenRequest = (req: IncomingMessage, res: ServerResponse, path: string) => RequestContext;

export function requestContexts(options: { logger: Logger; metrics: Metrics }): OpenRequest {
  // The access line's fields are fixed and carry no secret (the path has no query string; ids are not secrets), so
  // it skips the redaction that every other line gets: walking the redaction paths was a third of its cost.
  const accessLog = options.logger.child({}, { redact: [] });
  return function openRequest(req, res, path) {
    const started = process.hrtime.bigint();
    const requestId = newId("request");
    let child: Logger | undefined;
    const context: RequestContext = {
      requestId,
      route: undefined,
      get log() {
        child ??= options.logger.child({ request_id: requestId });
        return child;
      },
    };
    res.setHeader("Request-Id", requestId);
    // Every answer is exactly the type it declares: no browser may sniff a JSON error or a key into HTML.
    res.setHeader("X-Content-Type-Options", "nosniff");
    // Answers of the API and the account endpoints are one caller's data, some with secrets (a new key, a webhook
    // secret, the session's CSRF token): no cache along the way may keep them (RFC 9111 §5.2.2.5).
    if (isApiPath(path)) res.setHeader("Cache-Control", "no-store");
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Express's routes name their template on the request once matched.
      const route = context.route ?? ((req as Partial<Request>).route?.path as string | undefined) ?? "unmatched";
      options.metrics.httpDuration.observe(
        { method: req.method ?? "", route, status: String(res.statusCode) },
        seconds,
      );
      accessLog.info(
        {
          request_id: requestId,
          method: req.method,
          path,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1000),
        },
        "request",
      );
    });
    return context;
  };
}

/** The context as Express's first middleware, for the routes outside the contract: `res.locals.requestId`, `.log`. */
export function requestContext(open: OpenRequest) {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const context = open(req, res, req.path);
    res.locals.requestId = context.requestId;
    Object.defineProperty(res.locals, "log", { get: () => context.log, configurable: true });
    next();
  };
}
