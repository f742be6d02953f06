/**
 * One error class and one code catalog. Services throw `new AppError("LEAD_NOT_FOUND")`; the error handler
 * turns it into RFC 9457 problem+json. The catalog is typed by the contract's `ErrorCode` enum, so a code added
 * to the spec without a status here (or a code here that the spec does not declare) fails to compile.
 */

import catalog from "@service/spec/error-catalog.json" with { type: "json" };
import type { components } from "@service/spec/schema";

export type ErrorCode = components["schemas"]["ErrorCode"];
export type Problem = components["schemas"]["Problem"];
export type FieldError = components["schemas"]["FieldError"];

interface CatalogEntry {
  readonly status: number;
  readonly title: string;
  /** For people: what the code means and what to do (the page at its problem type URI). */
  readonly explanation: string;
}

/**
 * Status and title of every code, from the contract's own catalog (spec/error-catalog.json, which also gives the
 * OpenAPI documents their per-response examples). Typed by the mapped type: a code of the enum missing from the
 * file fails to compile, and a test checks that the file holds no other.
 */
export const ERROR_CATALOG: { readonly [C in ErrorCode]: CatalogEntry } = catalog;

export interface AppErrorOptions {
  detail?: string;
  errors?: FieldError[];
  /** Headers the response must carry (`Retry-After`, `WWW-Authenticate`, `Allow`). */
  headers?: Record<string, string>;
  /** For `EVENTS_EXPIRED`: the oldest event kept (the problem's `oldest_sequence`). */
  oldestSequence?: number;
  /** For `ATTRIBUTE_VALUES_CONFLICT`: how many objects do not fit, and up to 10 of them. */
  conflicting?: { count: number; ids: string[] };
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly detail: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly oldestSequence: number | undefined;
  readonly conflicting: { count: number; ids: string[] } | undefined;

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
    this.oldestSequence = options.oldestSequence;
    this.conflicting = options.conflicting;
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
  if (error.oldestSequence !== undefined) problem.oldest_sequence = error.oldestSequence;
  if (error.conflicting !== undefined) {
    problem.conflicting_count = error.conflicting.count;
    problem.conflicting_ids = error.conflicting.ids;
  }
  return problem;
}
