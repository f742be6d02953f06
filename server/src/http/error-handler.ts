/**
 * The one place that writes error responses. Whatever went wrong (an AppError from a service, a body-parser
 * failure, an express-openapi-validator error, or anything unknown) leaves as RFC 9457 problem+json with a stable
 * `code`, the request id, and never a stack trace or an HTML page.
 */
import type { ServerResponse } from "node:http";
import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "pino";
import { isRetryableConflict } from "../db/conflict.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { AppError, type FieldError, toProblem } from "../errors.ts";

/** How long a client is asked to wait when the database is unavailable (RFC 9110 §10.2.3). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;
/** How long a client is asked to wait after a write conflict: the write it met commits within milliseconds. */
const CONFLICT_RETRY_AFTER_SECONDS = 1;

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: ValidatorItem[];
  headers?: Record<string, unknown>;
  message?: string;
}

/** The validator's names of where a parameter is, and the contract's (`FieldError.path` in spec/common/errors.tsp). */
const PLACES: Readonly<Record<string, string>> = { params: "path", headers: "header" };

/**
 * `/body/email`, `.body.email` or `body.email` → `body.email`; `/query/limit` → `query.limit`; the validator's
 * `params.lead_id` and `headers.idempotency-key` → the contract's `path.lead_id` and `header.idempotency-key`.
 */
export function fieldPath(path: string | undefined): string {
  if (!path) return "request";
  const dotted = path.replace(/^[./]+/, "").replace(/\//g, ".");
  const place = dotted.split(".", 1)[0] as string;
  const renamed = PLACES[place];
  return renamed === undefined ? dotted : renamed + dotted.slice(place.length);
}

interface ValidatorItem {
  path?: string;
  message?: string;
  /** `<ajv keyword>.openapi.validation` (the contract check, as express-openapi-validator wrote it). */
  errorCode?: string;
}

/** What a `date-time` of the contract must be (storable.ts), said once, in place of "must match format". */
export const DATE_TIME_RULE =
  "must be an RFC 3339 date-time such as 2026-11-25T09:30:00Z, with a year from 0001 to 9999 (in UTC) and an offset within ±15:59";

/**
 * The validator's errors in words a person can act on. ajv says "must NOT have unevaluated properties" for a
 * misspelt property (which reads as a bad value): it becomes "unknown property `nam`". An `anyOf` of `required`
 * lists ("give at least one of") comes as one "must have required property" per branch plus "must match a schema
 * in anyOf": they become one "must have at least one of `email`, `phone`, …". A nullable field's wrong value comes
 * as its own error, "must be null" and "must match a schema in anyOf": only its own error stays.
 */
export function fieldErrors(items: readonly ValidatorItem[]): FieldError[] {
  const keyword = (item: ValidatorItem) => item.errorCode?.replace(/\.openapi\.validation$/, "");
  const anyOfPaths = new Set(items.filter((item) => keyword(item) === "anyOf").map((item) => fieldPath(item.path)));
  const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf(".")));
  const alternatives = new Map<string, string[]>();
  // A value that fails its format fails the pattern beside it too (the documents write what the server stores in both:
  // an e-mail's local part, a date-time's range): the format's message says it once.
  const formats = new Set(items.filter((item) => keyword(item) === "format").map((item) => fieldPath(item.path)));
  const out: FieldError[] = [];
  for (const item of items) {
    const path = fieldPath(item.path);
    const kind = keyword(item);
    if (kind === "pattern" && formats.has(path)) continue;
    if (kind === "required" && anyOfPaths.has(parentOf(path))) {
      const list = alternatives.get(parentOf(path)) ?? [];
      list.push(path.slice(parentOf(path).length + 1));
      alternatives.set(parentOf(path), list);
      continue;
    }
    if (kind === "anyOf") continue;
    // A nullable field (anyOf: its schema, or null) that got a wrong value: the value's own error says it all.
    if (kind === "type" && item.message === "must be null" && anyOfPaths.has(path)) continue;
    if (kind === "format" && item.message?.includes('"date-time"')) {
      out.push({ path, message: DATE_TIME_RULE });
      continue;
    }
    if (kind === "unevaluatedProperties" || kind === "additionalProperties") {
      out.push({ path, message: `unknown property \`${path.slice(path.lastIndexOf(".") + 1)}\`` });
      continue;
    }
    out.push({ path, message: item.message ?? "is invalid" });
  }
  for (const path of anyOfPaths) {
    const names = alternatives.get(path) ?? [];
    // The branch that failed has said why, at this path: the summary would only say it again.
    if (!names.length && out.some((error) => error.path === path)) continue;
    out.push({
      path,
      message: names.length
        ? `must have at least one of ${names.map((name) => `\`${name}\``).join(", ")}`
        : "must match one of the allowed shapes",
    });
  }
  return out;
}

/**
 * A write that names a lead or conversation which a concurrent delete removed after the service checked it: the
 * foreign key's check waits for the delete and then fails (PostgreSQL's foreign_key_violation). It is the object's
 * 404, as it would have been a moment later.
 */
function goneReference(error: unknown): AppError | undefined {
  const pgError = error as { code?: string; constraint?: string };
  if (pgError.code !== "23503" || typeof pgError.constraint !== "string") return undefined;
  if (pgError.constraint.endsWith("_lead_id_fkey")) return new AppError("LEAD_NOT_FOUND", { cause: error });
  if (pgError.constraint.endsWith("_conversation_id_fkey")) {
    return new AppError("CONVERSATION_NOT_FOUND", { cause: error });
  }
  return undefined;
}

/** Maps any thrown value to an AppError. Pure: the table of what becomes which code lives here. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isRetryableConflict(error)) {
    return new AppError("WRITE_CONFLICT", {
      detail: "A concurrent write to the same objects went first and this one was undone whole; retry it.",
      headers: { "Retry-After": String(CONFLICT_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError("SERVICE_UNAVAILABLE", {
      detail: "The database is not answering; retry after the time in Retry-After.",
      headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  const http = (typeof error === "object" && error !== null ? error : {}) as HttpLikeError;
  const status = http.status ?? http.statusCode;
  const referenced = goneReference(error);
  if (referenced) return referenced;

  // body-parser (express.json) failures, told apart by their documented `type`.
  switch (http.type) {
    case "entity.parse.failed":
      return new AppError("MALFORMED_JSON", { detail: "The body is not valid JSON.", cause: error });
    case "entity.too.large":
      return new AppError("PAYLOAD_TOO_LARGE", { cause: error });
    case "encoding.unsupported":
      // RFC 9110 §15.5.16: a 415 for a content coding names the codings taken, in Accept-Encoding (§12.5.3).
      return new AppError("UNSUPPORTED_MEDIA_TYPE", {
        detail: "Send the body without a Content-Encoding: no content coding is accepted.",
        headers: { "Accept-Encoding": "identity" },
        cause: error,
      });
    case "charset.unsupported":
      return new AppError("UNSUPPORTED_MEDIA_TYPE", { detail: http.message, cause: error });
  }

  // The contract check's errors carry an HTTP status and, for 400, one entry per failed field.
  switch (status) {
    case 400:
      return new AppError("VALIDATION_FAILED", { errors: fieldErrors(http.errors ?? []), cause: error });
    case 404:
      return new AppError("ROUTE_NOT_FOUND", { cause: error });
    case 405: {
      const allow = http.headers?.Allow ?? http.headers?.allow;
      const list = Array.isArray(allow) ? allow : typeof allow === "string" ? allow.split(",") : [];
      const listed = list.map((method) => String(method).trim().toUpperCase()).filter(Boolean);
      // Every GET answers HEAD too (api-router.ts, RFC 9110 §9.3.2), which the document does not list.
      const methods = (listed.includes("GET") ? [...listed, "HEAD"] : listed).join(", ");
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

/** Writes the problem of any thrown value, and logs it as its kind deserves. */
function answerError(
  res: ServerResponse,
  context: { readonly requestId: string; readonly log: Logger },
  error: unknown,
): void {
  const appError = toAppError(error);
  if (appError.code === "SERVICE_UNAVAILABLE") {
    // An outage answers every request this way: one warning each, not an error each.
    context.log.warn({ err: error, code: appError.code }, "request refused: a dependency is unavailable");
  } else if (appError.code === "WRITE_CONFLICT") {
    context.log.warn({ err: error, code: appError.code }, "request refused: a concurrent write went first");
  } else if (appError.status >= 500) {
    context.log.error({ err: error, code: appError.code }, "request failed");
  } else {
    context.log.debug({ code: appError.code, detail: appError.detail }, "request refused");
  }
  sendProblem(res, appError, context.requestId);
}

function sendProblem(res: ServerResponse, error: AppError, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.statusCode = error.status;
  res.setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.end(JSON.stringify(toProblem(error, requestId)));
}

/** Express's error handler, the app's last middleware. */
export function errorHandler(): ErrorRequestHandler {
  return function handleError(error: unknown, _req: Request, res: Response, _next): void {
    try {
      answerError(res, res.locals, error);
    } catch (failure) {
      // Not even the problem could be written (a header Node refuses, say): this connection ends, the process goes
      // on, and no HTML page of Express's own is sent.
      res.locals.log.error({ err: failure, error }, "the error answer failed");
      res.destroy();
    }
  };
}

/** After every route: nothing answered this path. */
export function notFoundHandler() {
  return function notFound(_req: Request, res: Response): void {
    sendProblem(res, new AppError("ROUTE_NOT_FOUND"), res.locals.requestId);
  };
}
