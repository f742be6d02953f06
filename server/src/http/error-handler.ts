/**
 * The one place that writes error responses. Whatever went wrong (an AppError from a service, a body-parser
 * failure, an express-openapi-validator error, or anything unknown) leaves as RFC 9457 problem+json with a
 * stable `code`, the request id, and never a stack trace or an HTML page.
 */
import type { ErrorRequestHandler, Request, Response } from "express";
import { AppError, type FieldError, toProblem } from "./errors.ts";

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: { path?: string; message?: string }[];
  headers?: Record<string, unknown>;
  message?: string;
}

/** `/body/email`, `.body.email` or `body.email` → `body.email`; `/query/limit` → `query.limit`. */
export function fieldPath(path: string | undefined): string {
  if (!path) return "request";
  return path.replace(/^[./]+/, "").replace(/\//g, ".");
}

function fieldErrors(error: HttpLikeError): FieldError[] {
  return (error.errors ?? []).map((item) => ({
    path: fieldPath(item.path),
    message: item.message ?? "is invalid",
  }));
}

/** Maps any thrown value to an AppError. Pure: the table of what becomes which code lives here. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const http = (typeof error === "object" && error !== null ? error : {}) as HttpLikeError;
  const status = http.status ?? http.statusCode;

  // body-parser (express.json) failures, told apart by their documented `type`.
  switch (http.type) {
    case "entity.parse.failed":
      return new AppError("MALFORMED_JSON", { detail: "The body is not valid JSON.", cause: error });
    case "entity.too.large":
      return new AppError("PAYLOAD_TOO_LARGE", { cause: error });
    case "encoding.unsupported":
    case "charset.unsupported":
      return new AppError("UNSUPPORTED_MEDIA_TYPE", { detail: http.message, cause: error });
  }

  // express-openapi-validator errors carry an HTTP status and, for 400, one entry per failed field.
  switch (status) {
    case 400:
      return new AppError("VALIDATION_FAILED", { errors: fieldErrors(http), cause: error });
    case 404:
      return new AppError("ROUTE_NOT_FOUND", { cause: error });
    case 405: {
      const allow = http.headers?.Allow ?? http.headers?.allow;
      const list = Array.isArray(allow) ? allow : typeof allow === "string" ? allow.split(",") : [];
      const methods = list
        .map((method) => String(method).trim().toUpperCase())
        .filter(Boolean)
        .join(", ");
      return new AppError("METHOD_NOT_ALLOWED", {
        ...(methods ? { headers: { Allow: methods } } : {}),
        cause: error,
      });
    }
    case 413:
      return new AppError("PAYLOAD_TOO_LARGE", { cause: error });
    case 415:
      return new AppError("UNSUPPORTED_MEDIA_TYPE", {
        detail: "Send the body as application/json.",
        cause: error,
      });
  }
  return new AppError("INTERNAL_ERROR", { cause: error });
}

export function sendProblem(res: Response, error: AppError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status);
  res.setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  // res.end, not res.json: the response validator wraps res.json, and error bodies follow the catalog anyway.
  res.end(JSON.stringify(toProblem(error, res.locals.requestId)));
}

export function errorHandler(): ErrorRequestHandler {
  return function handleError(error: unknown, _req: Request, res: Response, _next): void {
    const appError = toAppError(error);
    if (appError.status >= 500) {
      res.locals.log.error({ err: error, code: appError.code }, "request failed");
    } else {
      res.locals.log.debug({ code: appError.code, detail: appError.detail }, "request refused");
    }
    sendProblem(res, appError);
  };
}

/** After every route: nothing answered this path. */
export function notFoundHandler() {
  return function notFound(_req: Request, res: Response): void {
    sendProblem(res, new AppError("ROUTE_NOT_FOUND"));
  };
}
