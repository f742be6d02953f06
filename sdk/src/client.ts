import type { Client, FetchResponse, MaybeOptionalInit, Middleware } from "openapi-fetch";
import * as openapiFetch from "openapi-fetch";
import {
  type BatchOptions,
  type LeadUpsert,
  type TicketBatchItem,
  type TicketUpsert,
  type UpsertOptions,
  upsertLeads,
  upsertTickets,
} from "./batch.js";
import type { ApiProblem } from "./errors.js";
import type { components, paths } from "./generated/schema.js";
import {
  type Changed,
  type ChangeOptions,
  changed,
  conditionHeaders,
  type Fetched,
  fetched,
  type ReadOptions,
  type Updates,
} from "./objects.js";
import { type ListPath, type ListQuery, type PaginateArgs, type PaginateOptions, pages, paginate } from "./paginate.js";
import { resilientFetch } from "./retry.js";
import { userAgent } from "./version.js";

type CreateFetchClient = typeof openapiFetch.default;
// openapi-fetch's CommonJS build sets `exports.default`; this package's CommonJS build imports it the way Node does
// (a default import is the whole `module.exports`), so there the function is one level down. The package test caught
// `require("@service/sdk")` failing with "import_openapi_fetch.default is not a function".
const createFetchClient: CreateFetchClient =
  typeof openapiFetch.default === "function"
    ? openapiFetch.default
    : (openapiFetch.default as unknown as { default: CreateFetchClient }).default;

type Schemas = components["schemas"];
/** A lead, as the contract defines it. @example const { data } = await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id } } }); const lead: Lead | undefined = data; */
export type Lead = Schemas["Lead"];
/** A conversation. @example for await (const conversation of client.conversations.list()) console.log(conversation.subject); */
export type Conversation = Schemas["Conversation"];
/** A message of a conversation. @example for await (const message of client.conversations.messages("conv_01J…")) console.log(message.body); */
export type Message = Schemas["Message"];
/** A ticket. @example const tickets: Ticket[] = []; for await (const ticket of client.tickets.list()) tickets.push(ticket); */
export type Ticket = Schemas["Ticket"];
/** An event of the workspace's event log. @example for await (const event of client.events.list({ type: "lead.captured" })) console.log(event.id); */
export type Event = Schemas["Event"];
/** A webhook subscription. @example for await (const webhook of client.webhooks.list()) console.log(webhook.url, webhook.enabled); */
export type Webhook = Schemas["Webhook"];
/** One delivery of an event to a webhook. @example for await (const delivery of client.webhooks.deliveries("wh_01J…")) console.log(delivery.status); */
export type Delivery = Schemas["Delivery"];

/**
 * The options of `createClient`; every one but `apiKey` and `baseUrl` has a default.
 *
 * @example
 * const options: ClientOptions = { apiKey: "sk_live_…", baseUrl: "https://api.example.com", timeoutMs: 10_000 };
 */
export interface ClientOptions {
  /** The API key (`sk_test_…` or `sk_live_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Where the API is, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** A fetch to use instead of the global one (tests, proxies, other runtimes). */
  fetch?: (request: Request) => Promise<Response>;
  /** The longest one attempt may take, answer body included, in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** The longest a whole call may take, every retry and wait included, in milliseconds (default 120 000). */
  deadlineMs?: number;
  /** Retries of network errors, timeouts, 429, 500, 502, 503, 504 and 409 `IDEMPOTENCY_KEY_IN_USE` (default 3). */
  maxRetries?: number;
  /** The longest backoff between attempts when the answer has no `Retry-After`, in milliseconds (default 30 000). */
  maxRetryDelayMs?: number;
  /** A `Retry-After` longer than this (seconds) is not waited for: the call returns that error (default 60). */
  maxRetryAfterSeconds?: number;
  /** Makes the idempotency keys (default `crypto.randomUUID()`). */
  idempotencyKey?: () => string;
}

/**
 * Per-call controls of the list helpers: a starting cursor, a signal and extra headers.
 *
 * @example
 * client.leads.list({ status: "new" }, { cursor: savedCursor, signal: AbortSignal.timeout(30_000) });
 */
export type PageControl = Pick<PaginateOptions<"/v1/leads">, "cursor" | "signal" | "headers">;

/** The default `timeoutMs`: one attempt, answer body included. @example createClient({ apiKey, baseUrl, timeoutMs: DEFAULT_TIMEOUT_MS / 3 }); */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The default `deadlineMs`: a whole call, retries and waits included. @example createClient({ apiKey, baseUrl, deadlineMs: 2 * DEFAULT_DEADLINE_MS }); */
export const DEFAULT_DEADLINE_MS = 120_000;
/** The default `maxRetries`. @example createClient({ apiKey, baseUrl, maxRetries: DEFAULT_MAX_RETRIES + 2 }); */
export const DEFAULT_MAX_RETRIES = 3;
/** The default `maxRetryAfterSeconds`. @example createClient({ apiKey, baseUrl, maxRetryAfterSeconds: 2 * DEFAULT_MAX_RETRY_AFTER_SECONDS }); */
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;
const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;
const BASE_RETRY_DELAY_MS = 500;

// The contract takes `Idempotency-Key` on POST and PATCH.
const WRITE_METHODS = new Set(["POST", "PATCH"]);

type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
type MediaType = `${string}/${string}`;
type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof paths];
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
// As openapi-fetch's own (unexported) InitParam: the init argument is optional when nothing in it is required.
type InitArgs<Init> =
  RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/**
 * openapi-fetch's answer with the error branch replaced: every error answer, declared by the contract or not (a
 * gateway's 502), reaches the caller as an `ApiProblem`. (openapi-fetch's own error type would also turn the open
 * `ErrorCode` into an object type: its `Readable` helper maps over `string & {}`.)
 *
 * @example
 * const result = await client.GET("/v1/leads");
 * if (result.error) console.error(result.error.code); // an ApiProblem
 * else console.log(result.data.has_more);
 */
export type Result<Answer> = Answer extends { error: unknown }
  ? { data?: never; error: ApiProblem; response: Response }
  : Answer;

// biome-ignore lint/suspicious/noExplicitAny: the constraint of openapi-fetch's FetchResponse.
type Operation<P extends keyof paths, M extends HttpMethod> = Extract<paths[P][M], Record<string | number, any>>;

type Method<M extends HttpMethod> = <Path extends PathsWith<M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: InitArgs<Init>
) => Promise<Result<FetchResponse<Operation<Path, M>, Init, MediaType>>>;

/**
 * openapi-fetch's client over the contract's `paths`, with `ApiProblem` as the error of every call.
 *
 * @example
 * function listLeads(client: TypedClient) {
 *   return client.GET("/v1/leads", { params: { query: { limit: 10 } } });
 * }
 */
export interface TypedClient
  extends Omit<Client<paths>, "request" | "GET" | "PUT" | "POST" | "DELETE" | "OPTIONS" | "HEAD" | "PATCH" | "TRACE"> {
  request: <M extends HttpMethod, Path extends PathsWith<M>, Init extends MaybeOptionalInit<paths[Path], M>>(
    method: M,
    url: Path,
    ...init: InitArgs<Init>
  ) => Promise<Result<FetchResponse<Operation<Path, M>, Init, MediaType>>>;
  GET: Method<"get">;
  PUT: Method<"put">;
  POST: Method<"post">;
  DELETE: Method<"delete">;
  OPTIONS: Method<"options">;
  HEAD: Method<"head">;
  PATCH: Method<"patch">;
  TRACE: Method<"trace">;
}

/**
 * Creates a client: openapi-fetch typed by the contract, so every call returns `{ data, error, response }` and never
 * throws on an HTTP error. It adds the API key, `User-Agent` (where the runtime allows it), an `Idempotency-Key` on
 * every write, per-attempt timeouts, a deadline, retries, and paginators.
 *
 * @example
 * const client = createClient({ apiKey: process.env.API_KEY!, baseUrl: "http://127.0.0.1:3000" });
 * const { data, error } = await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: "lead_01J…" } } });
 * if (error) console.error(error.status, error.code, error.request_id);
 * else console.log(data.email);
 */
export function createClient(options: ClientOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const agent = userAgent();
  const fetchClient = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch: resilientFetch(baseFetch, {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS,
      baseDelayMs: BASE_RETRY_DELAY_MS,
    }),
    headers: { Authorization: `Bearer ${options.apiKey}`, ...(agent ? { "User-Agent": agent } : {}) },
  });
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  const idempotency: Middleware = {
    onRequest({ request }) {
      // Set once, before the first attempt: every retry of this write carries the same key.
      if (WRITE_METHODS.has(request.method) && !request.headers.has("Idempotency-Key")) {
        request.headers.set("Idempotency-Key", newKey());
      }
      return request;
    },
  };
  fetchClient.use(idempotency);
  const client = fetchClient as unknown as TypedClient;

  /** A list helper: the generic paginator with the path fixed. */
  const list =
    <P extends ListPath>(path: P) =>
    (query: ListQuery<P> = {} as ListQuery<P>, control: PageControl = {}) =>
      paginate(client, path, { ...control, params: { query } } as PaginateOptions<P>);

  /** The request options of a conditional call. */
  const init = (options: ReadOptions & ChangeOptions) => ({
    headers: conditionHeaders(options),
    ...(options.signal && { signal: options.signal }),
  });

  return Object.assign(client, {
    /**
     * Every item of any list of the contract, page after page (see `paginate`).
     *
     * @example
     * for await (const lead of client.paginate("/v1/leads", { params: { query: { status: "new" } } })) console.log(lead.id);
     */
    paginate: <P extends ListPath>(path: P, ...rest: PaginateArgs<P>) => paginate(client, path, ...rest),
    /**
     * Every page of any list of the contract (see `pages`).
     *
     * @example
     * for await (const page of client.pages("/v1/events", { cursor: savedCursor })) savedCursor = page.next_cursor;
     */
    pages: <P extends ListPath>(path: P, ...rest: PaginateArgs<P>) => pages(client, path, ...rest),
    leads: {
      /** @example for await (const lead of client.leads.list({ status: "new" })) console.log(lead.email); */
      list: list("/v1/leads"),
      /**
       * Creates or updates any number of leads, 100 a call (see `upsertLeads`).
       *
       * @example
       * const results = await client.leads.upsert(rows, { matchOn: "external_id", onProgress: ({ done }) => console.log(done) });
       */
      upsert: (items: readonly LeadUpsert[], options: UpsertOptions) => upsertLeads(client, items, options),
      /**
       * One lead with its `etag`; with `ifNoneMatch`, `notModified` (free) while it is unchanged.
       *
       * @example
       * const read = await client.leads.get("lead_01J…", { ifNoneMatch: etag });
       */
      get: async (leadId: string, options: ReadOptions = {}): Promise<Fetched<Lead>> =>
        fetched(await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: leadId } }, ...init(options) })),
      /**
       * Changes a lead; with `ifMatch`, only the version you read (else `PRECONDITION_FAILED`).
       *
       * @example
       * const result = await client.leads.update("lead_01J…", { status: "qualified" }, { ifMatch: etag });
       */
      update: async (leadId: string, patch: Updates["lead"], options: ChangeOptions = {}): Promise<Changed<Lead>> =>
        changed(
          await client.PATCH("/v1/leads/{lead_id}", {
            params: { path: { lead_id: leadId } },
            body: patch,
            ...init(options),
          }),
        ),
      /**
       * Deletes a lead; with `ifMatch`, only the version you read (else `PRECONDITION_FAILED`).
       *
       * @example
       * const { error } = await client.leads.remove("lead_01J…", { ifMatch: etag });
       */
      remove: async (leadId: string, options: ChangeOptions = {}) =>
        await client.DELETE("/v1/leads/{lead_id}", { params: { path: { lead_id: leadId } }, ...init(options) }),
    },
    conversations: {
      /** @example for await (const conversation of client.conversations.list({ state: "open" })) console.log(conversation.id); */
      list: list("/v1/conversations"),
      /** @example const read = await client.conversations.get("conv_01J…", { ifNoneMatch: etag }); */
      get: async (conversationId: string, options: ReadOptions = {}): Promise<Fetched<Conversation>> =>
        fetched(
          await client.GET("/v1/conversations/{conversation_id}", {
            params: { path: { conversation_id: conversationId } },
            ...init(options),
          }),
        ),
      /** @example const result = await client.conversations.update("conv_01J…", { state: "closed" }, { ifMatch: etag }); */
      update: async (
        conversationId: string,
        patch: Updates["conversation"],
        options: ChangeOptions = {},
      ): Promise<Changed<Conversation>> =>
        changed(
          await client.PATCH("/v1/conversations/{conversation_id}", {
            params: { path: { conversation_id: conversationId } },
            body: patch,
            ...init(options),
          }),
        ),
      /** @example for await (const message of client.conversations.messages("conv_01J…")) console.log(message.body); */
      messages: (
        conversationId: string,
        query: ListQuery<"/v1/conversations/{conversation_id}/messages"> = {},
        control: PageControl = {},
      ) =>
        paginate(client, "/v1/conversations/{conversation_id}/messages", {
          ...control,
          params: { path: { conversation_id: conversationId }, query },
        }),
    },
    tickets: {
      /** @example for await (const ticket of client.tickets.list({ status: "open" })) console.log(ticket.number); */
      list: list("/v1/tickets"),
      /** @example const read = await client.tickets.get("tkt_01J…", { ifNoneMatch: etag }); */
      get: async (ticketId: string, options: ReadOptions = {}): Promise<Fetched<Ticket>> =>
        fetched(
          await client.GET("/v1/tickets/{ticket_id}", { params: { path: { ticket_id: ticketId } }, ...init(options) }),
        ),
      /** @example const result = await client.tickets.update("tkt_01J…", { status: "solved" }, { ifMatch: etag }); */
      update: async (
        ticketId: string,
        patch: Updates["ticket"],
        options: ChangeOptions = {},
      ): Promise<Changed<Ticket>> =>
        changed(
          await client.PATCH("/v1/tickets/{ticket_id}", {
            params: { path: { ticket_id: ticketId } },
            body: patch,
            ...init(options),
          }),
        ),
      /**
       * Creates or updates any number of tickets by `external_id`, 100 a call (see `upsertTickets`).
       *
       * @example
       * const results = await client.tickets.upsert(rows, { onProgress: ({ done }) => console.log(done) });
       */
      upsert: (items: readonly TicketUpsert[], options?: BatchOptions<TicketBatchItem>) =>
        upsertTickets(client, items, options),
    },
    events: {
      /** @example for await (const event of client.events.list({ type: "lead.captured" })) console.log(event.id); */
      list: list("/v1/events"),
    },
    webhooks: {
      /** @example for await (const webhook of client.webhooks.list()) console.log(webhook.url); */
      list: list("/v1/webhooks"),
      /** @example for await (const delivery of client.webhooks.deliveries("wh_01J…")) console.log(delivery.status); */
      deliveries: (
        webhookId: string,
        query: ListQuery<"/v1/webhooks/{webhook_id}/deliveries"> = {},
        control: PageControl = {},
      ) =>
        paginate(client, "/v1/webhooks/{webhook_id}/deliveries", {
          ...control,
          params: { path: { webhook_id: webhookId }, query },
        }),
    },
  });
}

/**
 * The type of a client made by `createClient`.
 *
 * @example
 * async function countLeads(client: ServiceClient): Promise<number> {
 *   let count = 0;
 *   for await (const _ of client.paginate("/v1/leads")) count++;
 *   return count;
 * }
 */
export type ServiceClient = ReturnType<typeof createClient>;
