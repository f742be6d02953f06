/**
 * The typed client of the v1 API: openapi-fetch over the types generated from the contract, with the API key, an
 * `Idempotency-Key` on every write, timeouts, a deadline, cancellation, retries of what is safe to retry, typed
 * errors for every error answer, and one paginator for every list.
 *
 * @example
 * import { createClient } from "@service/sdk";
 *
 * const client = createClient({ apiKey: process.env.API_KEY!, baseUrl: "http://127.0.0.1:3000" });
 * const { data, error } = await client.POST("/v1/leads", { body: { email: "ada@example.com" } });
 * if (error) console.error(error.code);
 * for await (const lead of client.paginate("/v1/leads", { params: { query: { status: "new" } } })) console.log(lead.id);
 */

export {
  BATCH_SIZE,
  type BatchOptions,
  type BatchPoster,
  type LeadBatchItem,
  type LeadUpsert,
  type TicketBatchItem,
  type TicketUpsert,
  type UpsertOptions,
  upsertLeads,
  upsertTickets,
} from "./batch.js";
export {
  type ClientOptions,
  type Conversation,
  createClient,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_AFTER_SECONDS,
  DEFAULT_TIMEOUT_MS,
  type Delivery,
  type Event,
  type Lead,
  type Message,
  type PageControl,
  type Result,
  type ServiceClient,
  type Ticket,
  type TypedClient,
  type Webhook,
} from "./client.js";
export { ApiError, type ApiProblem, type ErrorCode, type Problem } from "./errors.js";
export type { components, operations, paths, webhooks } from "./generated/schema.js";
export type { Changed, ChangeOptions, Fetched, ReadOptions, Updates } from "./objects.js";
export {
  type ListItem,
  type ListPage,
  type ListPath,
  type ListQuery,
  type PageFetcher,
  type PaginateArgs,
  type PaginateOptions,
  pages,
  paginate,
} from "./paginate.js";
export { retryAfterMs } from "./retry.js";
export { SDK_VERSION } from "./version.js";
