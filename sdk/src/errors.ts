import type { components } from "./generated/schema.js";

/** An RFC 9457 problem as the API sends it. */
export type Problem = components["schemas"]["Problem"];
/** The stable error codes of the API. */
export type ErrorCode = components["schemas"]["ErrorCode"];

/**
 * An error answer of the API, thrown by the SDK's list iterators (the plain calls return `{ data, error }` and never
 * throw on an HTTP error).
 *
 * @example
 * try {
 *   for await (const lead of client.leads.list()) console.log(lead.id);
 * } catch (error) {
 *   if (error instanceof ApiError && error.code === "RATE_LIMITED") console.log("slow down");
 * }
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly requestId: string | undefined;

  constructor(
    readonly problem: Partial<Problem>,
    response: Response,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${response.status}`);
    this.name = "ApiError";
    this.status = response.status;
    this.code = problem.code;
    this.requestId = problem.request_id ?? response.headers.get("request-id") ?? undefined;
  }
}
