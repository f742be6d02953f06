/**
 * The typed client of the v1 API: openapi-fetch over the types generated from the contract, with the API key,
 * an `Idempotency-Key` on every write, retries of what is safe to retry, and iterators over every list.
 *
 * @example
 * import { createClient } from "@service/sdk";
 *
 * const client = createClient({ apiKey: process.env.API_KEY!, baseUrl: "http://127.0.0.1:3000" });
 * const { data, error } = await client.POST("/v1/leads", { body: { email: "ada@example.com" } });
 * if (error) console.error(error.code);
 * for await (const lead of client.leads.list({ status: "new" })) console.log(lead.id);
 */
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { ApiError } from "./errors.js";
import type { components, paths } from "./generated/schema.js";
import { type RetryOptions, retryingFetch } from "./retry.js";

export { ApiError, type ErrorCode, type Problem } from "./errors.js";
export type { components, operations, paths, webhooks } from "./generated/schema.js";
export { retryAfterMs } from "./retry.js";

type Schemas = components["schemas"];
export type Lead = Schemas["Lead"];
export type Conversation = Schemas["Conversation"];
export type Message = Schemas["Message"];
export type Ticket = Schemas["Ticket"];
export type Event = Schemas["Event"];
export type Webhook = Schemas["Webhook"];

export interface ClientOptions {
  /** The API key (`sk_live_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Where the API is, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** A fetch to use instead of the global one (tests, proxies, other runtimes). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of network errors, 429 and 503 (default 3; 0 turns retries off). */
  maxRetries?: number;
  /** The longest wait between two attempts, in milliseconds (default 30 000). */
  maxRetryDelayMs?: number;
  /** Makes the idempotency keys (default `crypto.randomUUID()`). */
  idempotencyKey?: () => string;
}

// The contract takes `Idempotency-Key` on POST and PATCH.
const WRITE_METHODS = new Set(["POST", "PATCH"]);

type ListQuery<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;

/** Query of a list without its paging parameters, which the iterator handles. */
type Filters<P extends keyof paths> = Omit<ListQuery<P>, "cursor">;

/**
 * Creates a client.
 *
 * @example
 * const client = createClient({ apiKey: "sk_live_…", baseUrl: "http://127.0.0.1:3000" });
 * const { data } = await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: "lead_01J…" } } });
 */
export function createClient(options: ClientOptions) {
  const retry: RetryOptions = {
    maxRetries: options.maxRetries ?? 3,
    maxDelayMs: options.maxRetryDelayMs ?? 30_000,
    baseDelayMs: 500,
  };
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client: Client<paths> = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch: retryingFetch(baseFetch, retry),
    headers: { Authorization: `Bearer ${options.apiKey}` },
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
  client.use(idempotency);

  /** Every item of a list, page after page, newest first. Throws ApiError on an error answer. */
  async function* iterate<T>(
    fetchPage: (cursor: string | undefined) => Promise<{
      data?: { data: T[]; next_cursor: string | null };
      error?: unknown;
      response: Response;
    }>,
  ): AsyncGenerator<T, void, undefined> {
    let cursor: string | undefined;
    do {
      const { data, error, response } = await fetchPage(cursor);
      if (error !== undefined || !data) throw new ApiError((error ?? {}) as Partial<Schemas["Problem"]>, response);
      yield* data.data;
      cursor = data.next_cursor ?? undefined;
    } while (cursor);
  }

  return Object.assign(client, {
    leads: {
      /** @example for await (const lead of client.leads.list({ status: "new" })) console.log(lead.email); */
      list: (filters: Filters<"/v1/leads"> = {}) =>
        iterate<Lead>((cursor) => client.GET("/v1/leads", { params: { query: { ...filters, cursor } } })),
    },
    conversations: {
      /** @example for await (const conversation of client.conversations.list({ state: "open" })) console.log(conversation.id); */
      list: (filters: Filters<"/v1/conversations"> = {}) =>
        iterate<Conversation>((cursor) =>
          client.GET("/v1/conversations", { params: { query: { ...filters, cursor } } }),
        ),
      /** @example for await (const message of client.conversations.messages("conv_01J…")) console.log(message.body); */
      messages: (conversationId: string, filters: Filters<"/v1/conversations/{conversation_id}/messages"> = {}) =>
        iterate<Message>((cursor) =>
          client.GET("/v1/conversations/{conversation_id}/messages", {
            params: { path: { conversation_id: conversationId }, query: { ...filters, cursor } },
          }),
        ),
    },
    tickets: {
      /** @example for await (const ticket of client.tickets.list({ status: "open" })) console.log(ticket.number); */
      list: (filters: Filters<"/v1/tickets"> = {}) =>
        iterate<Ticket>((cursor) => client.GET("/v1/tickets", { params: { query: { ...filters, cursor } } })),
    },
    events: {
      /** @example for await (const event of client.events.list({ type: "lead.captured" })) console.log(event.id); */
      list: (filters: Filters<"/v1/events"> = {}) =>
        iterate<Event>((cursor) => client.GET("/v1/events", { params: { query: { ...filters, cursor } } })),
    },
    webhooks: {
      /** @example for await (const webhook of client.webhooks.list()) console.log(webhook.url); */
      list: (filters: Filters<"/v1/webhooks"> = {}) =>
        iterate<Webhook>((cursor) => client.GET("/v1/webhooks", { params: { query: { ...filters, cursor } } })),
    },
  });
}

export type ServiceClient = ReturnType<typeof createClient>;
