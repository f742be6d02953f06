import { ApiError, type ApiProblem } from "./errors.js";
import type { components } from "./generated/schema.js";

/**
 * A lead to create or update: a `LeadCreate`, matched on its `external_id` or `email`, with `expected_version` to
 * apply it only to that version of the lead it matches.
 *
 * @example
 * const row: LeadUpsert = { external_id: "crm-4821", name: "Ada Lovelace", email: "ada@example.com" };
 */
export type LeadUpsert = components["schemas"]["LeadBatchUpsertItem"];
/**
 * What became of one item: `created`, `updated`, `unchanged`, or `failed` with its `problem`.
 *
 * @example
 * if (item.result === "failed") console.log(item.problem?.code, item.problem?.errors);
 */
export type LeadBatchItem = components["schemas"]["LeadBatchItem"];

/**
 * A ticket to create or update: a `TicketCreate` with its `external_id`, which it is matched on, and
 * `expected_version` to apply it only to that version of the ticket.
 *
 * @example
 * const row: TicketUpsert = { external_id: "zd-1042", subject: "Cannot export invoices", status: "open" };
 */
export type TicketUpsert = components["schemas"]["TicketBatchUpsertItem"] & { external_id: string };
/**
 * What became of one ticket item, as `LeadBatchItem` for leads.
 *
 * @example
 * if (item.result === "failed") console.log(item.problem?.code);
 */
export type TicketBatchItem = components["schemas"]["TicketBatchItem"];

/**
 * The most items one call of `POST /v1/leads/batch` or `POST /v1/tickets/batch` takes.
 *
 * @example
 * const calls = Math.ceil(rows.length / BATCH_SIZE);
 */
export const BATCH_SIZE = 100;

/**
 * How `upsertTickets` reports, and how it stops.
 *
 * @example
 * const options: BatchOptions<TicketBatchItem> = { onProgress: ({ done, total }) => console.log(done, total) };
 */
export interface BatchOptions<Result> {
  /** Called after each call with the results so far (in the items' order) and the number of items. */
  onProgress?: (progress: { done: number; total: number; results: readonly Result[] }) => void;
  /** Ends the work between calls and the call in flight. */
  signal?: AbortSignal;
}

/**
 * How `upsertLeads` matches and reports.
 *
 * @example
 * const options: UpsertOptions = { matchOn: "email", onProgress: ({ done, total }) => console.log(done, total) };
 */
export interface UpsertOptions extends BatchOptions<LeadBatchItem> {
  /** What an item is matched on to find the lead it updates. */
  matchOn: "external_id" | "email";
}

/**
 * The client's side of a batch call, as `createClient` makes it.
 *
 * @example
 * const poster: BatchPoster = createClient({ apiKey: "sk_live_…", baseUrl: "https://api.example.com" });
 */
export interface BatchPoster {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's POST is generic over every path; upsertLeads's own signature is the typed one.
  POST: (...args: any[]) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
}

/**
 * Creates or updates any number of leads, 100 a call, in order, and resolves with one result per item. Each call has
 * its own Idempotency-Key, which the client's retries reuse: a call retried after a lost answer writes nothing twice.
 * An item that fails does not stop the others (its result says why, its field paths naming its row in `items`:
 * `body.items.150.email`, not the `body.items.50.email` of its call); a call refused as a whole throws `ApiError`
 * (paths likewise), and the calls before it stay written.
 *
 * @example
 * const results = await upsertLeads(client, rows, {
 *   matchOn: "external_id",
 *   onProgress: ({ done, total }) => console.log(`${done}/${total}`),
 * });
 * console.log(results.filter((item) => item.result === "failed").length, "failed");
 */
export function upsertLeads(
  client: BatchPoster,
  items: readonly LeadUpsert[],
  options: UpsertOptions,
): Promise<LeadBatchItem[]> {
  return upsertInCalls(client, "/v1/leads/batch", options.matchOn, items, options);
}

/**
 * Creates or updates any number of tickets, 100 a call, matched on their `external_id`, in order, as `upsertLeads`
 * does for leads. A matched ticket's `status` must follow the legal moves; an item that cannot fails alone.
 *
 * @example
 * const results = await upsertTickets(client, [{ external_id: "zd-1042", subject: "Cannot export", status: "open" }]);
 * console.log(results[0]?.result); // "created"
 */
export function upsertTickets(
  client: BatchPoster,
  items: readonly TicketUpsert[],
  options: BatchOptions<TicketBatchItem> = {},
): Promise<TicketBatchItem[]> {
  return upsertInCalls(client, "/v1/tickets/batch", "external_id", items, options);
}

async function upsertInCalls<Result>(
  client: BatchPoster,
  path: string,
  matchOn: string,
  items: readonly unknown[],
  options: BatchOptions<Result>,
): Promise<Result[]> {
  const results: Result[] = [];
  for (let start = 0; start < items.length; start += BATCH_SIZE) {
    options.signal?.throwIfAborted();
    const { data, error, response } = await client.POST(path, {
      body: { match_on: matchOn, items: items.slice(start, start + BATCH_SIZE) },
      ...(options.signal && { signal: options.signal }),
    });
    if (error !== undefined || data === undefined) {
      throw new ApiError(inCallersRows((error ?? {}) as Partial<ApiProblem>, start), response);
    }
    for (const item of (data as { data: (Result & { problem?: ApiProblem })[] }).data) {
      results.push(item.problem ? { ...item, problem: inCallersRows(item.problem, start) } : item);
    }
    options.onProgress?.({ done: results.length, total: items.length, results });
  }
  return results;
}

/**
 * A problem with its field paths naming the caller's row, not the row of its call: the call that starts at row 100
 * answers `body.items.50.email` for row 150, which would send the caller to the wrong row of a spreadsheet.
 */
export function inCallersRows<P extends { errors?: { path: string; message: string }[] | undefined }>(
  problem: P,
  start: number,
): P {
  if (start === 0 || !problem.errors) return problem;
  const errors = problem.errors.map((error) => ({
    ...error,
    path: error.path.replace(/^body\.items\.(\d+)(?=\.|$)/, (_, row: string) => `body.items.${start + Number(row)}`),
  }));
  return { ...problem, errors };
}
