import type { ApiProblem } from "./errors.js";
import type { components } from "./generated/schema.js";

type Schemas = components["schemas"];

/**
 * A read of one object with `ifNoneMatch`: the object and its `etag`, or `notModified` (a 304: the copy you hold, whose
 * `etag` you sent, is current, and the call spent nothing of the request budget), or the error.
 *
 * @example
 * const read = await client.tickets.get("tkt_01J…", { ifNoneMatch: etag });
 * if (read.error) throw new Error(read.error.code);
 * if (!read.notModified) { ticket = read.data; etag = read.etag; }
 */
export type Fetched<T> =
  | { notModified: false; data: T; etag: string; error?: never; response: Response }
  | { notModified: true; data?: never; etag: string; error?: never; response: Response }
  | { notModified?: never; data?: never; etag?: never; error: ApiProblem; response: Response };

/**
 * A change of one object with `ifMatch`: the object as changed and its new `etag`, or the error; a stale `ifMatch` is
 * the error `PRECONDITION_FAILED`, whose answer's `ETag` header is the current one.
 *
 * @example
 * const changed = await client.tickets.update(id, { status: "solved" }, { ifMatch: etag });
 * if (changed.error?.code === "PRECONDITION_FAILED") console.log("changed meanwhile", changed.response.headers.get("etag"));
 */
export type Changed<T> =
  | { data: T; etag: string; error?: never; response: Response }
  | { data?: never; etag?: never; error: ApiProblem; response: Response };

/** A `GET` of an object, with `If-None-Match` when given. @example { ifNoneMatch: '"tkt_01J….3"' } */
export interface ReadOptions {
  /** The `etag` of the copy you hold: when it is still current the answer is `notModified`, and free. */
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

/** A `PATCH` or `DELETE` of an object, with `If-Match` when given. @example { ifMatch: '"tkt_01J….3"' } */
export interface ChangeOptions {
  /** The `etag` of the version you read: the change applies only to it (else `PRECONDITION_FAILED`). */
  ifMatch?: string;
  signal?: AbortSignal;
}

/** What openapi-fetch answered for a call of one object. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

function etagOf(response: Response): string {
  return response.headers.get("etag") ?? "";
}

/** openapi-fetch's answer of a conditional read as a `Fetched` (a 304 is neither data nor error to openapi-fetch). */
export function fetched<T>(answer: Answer): Fetched<T> {
  const { response } = answer;
  if (response.status === 304) return { notModified: true, etag: etagOf(response), response };
  if (answer.error !== undefined || answer.data === undefined) return { error: answer.error as ApiProblem, response };
  return { notModified: false, data: answer.data as T, etag: etagOf(response), response };
}

/** openapi-fetch's answer of a change as a `Changed`. */
export function changed<T>(answer: Answer): Changed<T> {
  const { response } = answer;
  if (answer.error !== undefined) return { error: answer.error as ApiProblem, response };
  return { data: answer.data as T, etag: etagOf(response), response };
}

/** The request headers of the options, for openapi-fetch's `params.header`. */
export function conditionHeaders(options: ReadOptions & ChangeOptions): Record<string, string> {
  return {
    ...(options.ifNoneMatch !== undefined && { "If-None-Match": options.ifNoneMatch }),
    ...(options.ifMatch !== undefined && { "If-Match": options.ifMatch }),
  };
}

/** The contract's update bodies, by object. @example const patch: Updates["ticket"] = { status: "solved" }; */
export interface Updates {
  lead: Schemas["LeadUpdate"];
  conversation: Schemas["ConversationUpdate"];
  ticket: Schemas["TicketUpdate"];
}
