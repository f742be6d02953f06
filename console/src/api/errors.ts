/**
 * openapi-fetch never throws on an HTTP error: it returns `{ data, error, response }`. `unwrap` turns an error
 * answer into one `ApiError` that keeps the problem (RFC 9457), the status and `Retry-After`, which TanStack Query
 * then carries to the page.
 */
import type { components } from "@service/spec/schema";
import { retryAfterSeconds, tooManyAttempts } from "../lib/retry-after.ts";

export type Problem = components["schemas"]["Problem"];
export type ErrorCode = components["schemas"]["ErrorCode"];

export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, problem: Problem | undefined, retryAfter: number | undefined, options?: ErrorOptions) {
    super(problem?.detail ?? problem?.title ?? `The service answered ${status}.`, options);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfter;
  }

  get code(): ErrorCode | undefined {
    return this.problem?.code;
  }
}

function isProblem(value: unknown): value is Problem {
  return typeof value === "object" && value !== null && "code" in value && "status" in value;
}

/** The data of a 2xx answer; anything else throws an `ApiError`. */
export async function unwrap<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: Awaited<typeof request>;
  try {
    result = await request;
  } catch (cause) {
    // A network failure: no answer at all (status 0).
    throw new ApiError(0, undefined, undefined, { cause });
  }
  const { data, error, response } = result;
  if (!response.ok) {
    throw new ApiError(
      response.status,
      isProblem(error) ? error : undefined,
      retryAfterSeconds(response.headers.get("Retry-After")),
    );
  }
  return data as T;
}

/** One sentence for a person: the wait for a 429, the problem's own words otherwise. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return "The service cannot be reached. Check your connection and try again.";
    if (error.status === 429) return tooManyAttempts(error.retryAfterSeconds);
    if (error.status >= 500) {
      return `Something went wrong on our side (${error.problem?.request_id ?? `status ${error.status}`}). Try again.`;
    }
    const fields = error.problem?.errors?.map((field) => `${field.path.replace(/^body\./, "")}: ${field.message}`);
    const detail = error.problem?.detail ?? error.problem?.title ?? error.message;
    return fields && fields.length > 0 ? `${detail} (${fields.join("; ")})` : detail;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The refusal's field errors by the field of the request body they name (`body.events.0` → `events`; the server's own
 * checks write `/until`), the first message of each, for a form to show at its fields.
 */
export function fieldErrors(error: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (!(error instanceof ApiError)) return fields;
  for (const item of error.problem?.errors ?? []) {
    const segments = item.path.split(/[./]/).filter(Boolean);
    if (segments[0] === "body") segments.shift();
    const [field] = segments;
    if (field && !fields.has(field)) fields.set(field, item.message);
  }
  return fields;
}
