/**
 * The first middleware: gives the request its id (`Request-Id` on every response, RFC-less but what Stripe
 * and others do), a child logger, and one access-log line with the duration when the response finishes.
 */
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { newId } from "../lib/ids.ts";
import type { Metrics } from "../ops/metrics.ts";
import { isApiPath } from "./api-paths.ts";
import type { MatchedRequest } from "./operations.ts";

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      log: Logger;
    }
  }
}

export function requestContext(options: { logger: Logger; metrics: Metrics }) {
  // The access line's fields are fixed and carry no secret (the path has no query string; ids are not secrets), so
  // it skips the redaction that every other line gets: walking the redaction paths was a third of its cost.
  const accessLog = options.logger.child({}, { redact: [] });
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const requestId = newId("request");
    res.locals.requestId = requestId;
    // The child logger is made on first use only (errors, debug lines): most requests log just the access line.
    let child: Logger | undefined;
    Object.defineProperty(res.locals, "log", {
      get: () => {
        child ??= options.logger.child({ request_id: requestId });
        return child;
      },
      configurable: true,
    });
    res.setHeader("Request-Id", requestId);
    // Every answer is exactly the type it declares: no browser may sniff a JSON error or a key into HTML.
    res.setHeader("X-Content-Type-Options", "nosniff");
    // Answers of the API and the account endpoints are one caller's data, some with secrets (a new key, a webhook
    // secret, the session's CSRF token): no cache along the way may keep them (RFC 9111 §5.2.2.5).
    if (isApiPath(req.path)) res.setHeader("Cache-Control", "no-store");
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The route template, never the raw path: ids in paths would explode the label set. Operations of the
      // contract are dispatched by the contract check's match (contract-requests.ts), other routes by Express.
      const route =
        (req as MatchedRequest).openapi?.expressRoute ?? (req.route?.path as string | undefined) ?? "unmatched";
      options.metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      accessLog.info(
        {
          request_id: requestId,
          method: req.method,
          path: req.path,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1000),
        },
        "request",
      );
    });
    next();
  };
}
