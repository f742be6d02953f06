/**
 * One error class and one code catalog. Services throw `new AppError("LEAD_NOT_FOUND")`; the error handler
 * turns it into RFC 9457 problem+json. The catalog is typed by the contract's `ErrorCode` enum, so a code added
 * to the spec without a status here (or a code here that the spec does not declare) fails to compile.
 */
import type { components } from "@service/sdk/schema";

export type ErrorCode = components["schemas"]["ErrorCode"];
export type Problem = components["schemas"]["Problem"];
export type FieldError = components["schemas"]["FieldError"];

interface CatalogEntry {
  readonly status: number;
  readonly title: string;
}

export const ERROR_CATALOG: { readonly [C in ErrorCode]: CatalogEntry } = {
  VALIDATION_FAILED: { status: 400, title: "The request does not match the contract" },
  MALFORMED_JSON: { status: 400, title: "The body is not well-formed JSON" },
  INVALID_CURSOR: { status: 400, title: "The cursor is not valid for this list" },
  DISPOSABLE_EMAIL: { status: 400, title: "Disposable e-mail addresses are not accepted" },
  INVITE_REQUIRED: { status: 400, title: "Registration requires an invite code" },
  INVITE_INVALID: { status: 400, title: "The invite code is not valid" },
  TOKEN_INVALID: { status: 400, title: "The token is invalid or expired" },
  PASSWORD_TOO_WEAK: { status: 400, title: "The password does not meet the password policy" },
  UNAUTHENTICATED: { status: 401, title: "Authentication required" },
  INVALID_CREDENTIALS: { status: 401, title: "The e-mail or password is wrong" },
  INSUFFICIENT_SCOPE: { status: 403, title: "The API key lacks the required scope" },
  CSRF_TOKEN_INVALID: { status: 403, title: "The CSRF token is missing or wrong" },
  EMAIL_NOT_VERIFIED: { status: 403, title: "The e-mail address is not verified" },
  ROUTE_NOT_FOUND: { status: 404, title: "No such route" },
  LEAD_NOT_FOUND: { status: 404, title: "Lead not found" },
  CONVERSATION_NOT_FOUND: { status: 404, title: "Conversation not found" },
  TICKET_NOT_FOUND: { status: 404, title: "Ticket not found" },
  EVENT_NOT_FOUND: { status: 404, title: "Event not found" },
  WEBHOOK_NOT_FOUND: { status: 404, title: "Webhook subscription not found" },
  DELIVERY_NOT_FOUND: { status: 404, title: "Delivery not found" },
  API_KEY_NOT_FOUND: { status: 404, title: "API key not found" },
  METHOD_NOT_ALLOWED: { status: 405, title: "Method not allowed" },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: "A request with this idempotency key is in progress" },
  INVALID_STATE_TRANSITION: { status: 409, title: "This state change is not allowed" },
  EXTERNAL_ID_TAKEN: { status: 409, title: "The external_id is already in use" },
  RESOURCE_LIMIT_REACHED: { status: 409, title: "The workspace has reached its limit" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "The body is too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported media type" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: "The idempotency key was used with another request" },
  WEBHOOK_URL_NOT_ALLOWED: { status: 422, title: "The webhook URL is not allowed" },
  RATE_LIMITED: { status: 429, title: "Too many requests" },
  INTERNAL_ERROR: { status: 500, title: "Internal error" },
  NOT_IMPLEMENTED: { status: 501, title: "Not implemented yet" },
  SERVICE_UNAVAILABLE: { status: 503, title: "Service unavailable" },
};

export interface AppErrorOptions {
  detail?: string;
  errors?: FieldError[];
  /** Headers the response must carry (`Retry-After`, `WWW-Authenticate`, `Allow`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly detail: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    options: AppErrorOptions = {},
  ) {
    super(options.detail ?? ERROR_CATALOG[code].title, { cause: options.cause });
    this.name = "AppError";
    this.status = ERROR_CATALOG[code].status;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** `/problems/lead-not-found` for `LEAD_NOT_FOUND`: a stable, relative problem type URI (RFC 9457 §3.1.1). */
export function problemType(code: ErrorCode): string {
  return `/problems/${code.toLowerCase().replaceAll("_", "-")}`;
}

export function toProblem(error: AppError, requestId: string): Problem {
  const problem: Problem = {
    type: problemType(error.code),
    title: ERROR_CATALOG[error.code].title,
    status: error.status,
    code: error.code,
    request_id: requestId,
  };
  if (error.detail !== undefined) problem.detail = error.detail;
  if (error.errors !== undefined && error.errors.length > 0) problem.errors = error.errors;
  return problem;
}
