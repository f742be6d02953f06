import type { components } from "./generated/schema.js";

/**
 * An RFC 9457 problem exactly as the API sends it (the contract's `Problem`); the client hands you an `ApiProblem`.
 *
 * @example
 * const problem: Problem = { type: "/problems/lead-not-found", title: "Lead not found", status: 404, code: "LEAD_NOT_FOUND", request_id: "req_1" };
 */
export type Problem = components["schemas"]["Problem"];

/**
 * A stable error code of the API. Known codes complete in the editor; a code added by a later API version is still
 * a valid value (`string & {}` keeps the union from collapsing into plain `string`).
 *
 * @example
 * const code: ErrorCode = "LEAD_NOT_FOUND";
 */
export type ErrorCode = components["schemas"]["ErrorCode"] | (string & {});

/**
 * What every error answer becomes before it reaches the caller, whatever its body was: the API's problem, a
 * gateway's empty 504, a proxy's HTML 502 or plain text. `status` is the HTTP status of the answer, `code` the API's
 * code or `HTTP_<status>` when the body has none, `request_id` comes from the `Request-Id` header or the body, and
 * `raw` is the body as received.
 *
 * @example
 * const { error } = await client.GET("/v1/leads");
 * if (error) console.error(error.status, error.code, error.request_id, error.raw);
 */
export interface ApiProblem extends Omit<Problem, "code" | "request_id" | "errors"> {
  code: ErrorCode;
  /** The request id, when the answer carried one (a gateway's own error may not). */
  request_id?: string;
  errors?: Problem["errors"];
  /** The body exactly as received (empty for an empty answer). */
  raw: string;
}

const PROBLEM_MEDIA_TYPE = "application/problem+json";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The caller's view of an error answer, from its status, headers and raw body (pure: table-tested).
 *
 * @example
 * toApiProblem(504, new Headers(), "").code; // "HTTP_504"
 */
function toApiProblem(status: number, headers: Headers, raw: string, statusText = ""): ApiProblem {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = raw === "" ? undefined : JSON.parse(raw);
    if (isRecord(parsed)) body = parsed;
  } catch {
    // Not JSON (HTML from a proxy, plain text): the raw text is kept below.
  }
  const problem: ApiProblem = {
    type: text(body.type) ?? "about:blank",
    title: text(body.title) ?? (statusText || `HTTP ${status}`),
    // The answer's own status, never a number copied from a body that may describe something else.
    status,
    code: text(body.code) ?? `HTTP_${status}`,
    raw,
  };
  const detail = text(body.detail);
  if (detail !== undefined) problem.detail = detail;
  const requestId = headers.get("request-id") ?? text(body.request_id);
  if (requestId) problem.request_id = requestId;
  if (Array.isArray(body.errors)) problem.errors = body.errors as Problem["errors"];
  if (typeof body.oldest_sequence === "number") problem.oldest_sequence = body.oldest_sequence;
  return problem;
}

/**
 * An error answer turned into a JSON problem response, so that openapi-fetch hands the caller an `ApiProblem` as
 * `error` for every error answer (it would otherwise give `undefined` for an empty body and a string for HTML).
 */
export function problemResponse(response: Response, raw: string): Response {
  const problem = toApiProblem(response.status, response.headers, raw, response.statusText);
  const headers = new Headers(response.headers);
  // The body changed: its old length and encoding no longer describe it.
  headers.delete("content-length");
  headers.delete("content-encoding");
  headers.set("content-type", PROBLEM_MEDIA_TYPE);
  const normalised = new Response(JSON.stringify(problem), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
  Object.defineProperty(normalised, "url", { value: response.url });
  return normalised;
}

/**
 * An error answer of the API as an exception, thrown by the paginators (the plain calls return `{ data, error }` and
 * never throw on an HTTP error).
 *
 * @example
 * try {
 *   for await (const lead of client.paginate("/v1/leads")) console.log(lead.id);
 * } catch (error) {
 *   if (error instanceof ApiError && error.code === "RATE_LIMITED") console.log("slow down", error.requestId);
 * }
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly requestId: string | undefined;
  /** The body exactly as received. */
  readonly raw: string;
  readonly problem: ApiProblem;

  constructor(problem: Partial<ApiProblem>, response: Response) {
    const full: ApiProblem = {
      ...toApiProblem(response.status, response.headers, problem.raw ?? "", response.statusText),
      ...problem,
    } as ApiProblem;
    super(full.detail ?? full.title);
    this.name = "ApiError";
    this.problem = full;
    this.status = response.status;
    this.code = full.code;
    this.requestId = full.request_id;
    this.raw = full.raw;
  }
}
