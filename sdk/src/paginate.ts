/**
 * One paginator for every list of the contract: any path whose GET answers `{ object: "list", data, has_more,
 * next_cursor }` and takes `?limit=&cursor=`. The list paths and their item types are read from the generated
 * `paths`, so a list added to the contract is paginated without a change here.
 */
import { ApiError, type ApiProblem } from "./errors.js";
import type { paths } from "./generated/schema.js";

type ListBody = { object: "list"; data: unknown[]; has_more: boolean; next_cursor: string | null };

/**
 * Every path whose GET answers a list.
 *
 * @example
 * const path: ListPath = "/v1/webhooks/{webhook_id}/deliveries";
 */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { "application/json": ListBody } } } } }
    ? P
    : never;
}[keyof paths];

type ListOperation<P extends ListPath> = paths[P]["get"];

/**
 * One page of a list, as the API sends it.
 *
 * @example
 * const page: ListPage<"/v1/leads"> = { object: "list", data: [], has_more: false, next_cursor: null };
 */
export type ListPage<P extends ListPath> = ListOperation<P>["responses"][200]["content"]["application/json"];

/**
 * The type of one item of a list.
 *
 * @example
 * type Delivery = ListItem<"/v1/webhooks/{webhook_id}/deliveries">;
 */
export type ListItem<P extends ListPath> = ListPage<P>["data"][number];

/**
 * The query of a list without `cursor`, which the paginator sets (use `cursor` to start elsewhere).
 *
 * @example
 * const query: ListQuery<"/v1/leads"> = { status: "new", limit: 100 };
 */
export type ListQuery<P extends ListPath> = Omit<NonNullable<ListOperation<P>["parameters"]["query"]>, "cursor">;

type PathParams<P extends ListPath> = ListOperation<P>["parameters"]["path"];

/**
 * Options of `paginate` and `pages`: the list's parameters, a starting cursor, a signal and extra headers.
 *
 * @example
 * const options: PaginateOptions<"/v1/conversations/{conversation_id}/messages"> = {
 *   params: { path: { conversation_id: "conv_01J…" }, query: { limit: 50 } },
 *   signal: AbortSignal.timeout(60_000),
 * };
 */
export type PaginateOptions<P extends ListPath> = {
  params?: { query?: ListQuery<P> };
  /** Start after a page already seen: the `next_cursor` it returned. */
  cursor?: string | undefined;
  /** Cancels the request in flight, any wait between retries, and the pages not yet fetched. */
  signal?: AbortSignal | undefined;
  /** Extra headers for every page's request. */
  headers?: Record<string, string> | undefined;
} & (PathParams<P> extends Record<string, unknown>
  ? { params: { path: PathParams<P>; query?: ListQuery<P> } }
  : unknown);

/**
 * The options argument of `paginate` and `pages`: required when the list's path has parameters.
 *
 * @example
 * function walk<P extends ListPath>(path: P, ...options: PaginateArgs<P>) {
 *   return client.paginate(path, ...options);
 * }
 */
export type PaginateArgs<P extends ListPath> =
  PathParams<P> extends Record<string, unknown> ? [options: PaginateOptions<P>] : [options?: PaginateOptions<P>];

/**
 * The part of a client the paginator needs: a GET in openapi-fetch's style (any openapi-fetch client of these paths).
 *
 * @example
 * const fetcher: PageFetcher = createClient({ apiKey: "sk_live_…", baseUrl: "https://api.example.com" });
 */
export interface PageFetcher {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's GET is generic over every path; the paginator's own signature is the typed one.
  GET: (...args: any[]) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
}

/**
 * Every page of a list in turn, from `cursor` (or the first page), newest first. Throws `ApiError` on an error
 * answer, and the signal's reason once it aborts.
 *
 * @example
 * for await (const page of pages(client, "/v1/leads", { params: { query: { limit: 100 } } })) {
 *   console.log(page.data.length, page.next_cursor); // keep next_cursor to resume later with { cursor }
 * }
 */
export async function* pages<P extends ListPath>(
  client: PageFetcher,
  path: P,
  ...[options]: PaginateArgs<P>
): AsyncGenerator<ListPage<P>, void, undefined> {
  const {
    params,
    cursor: start,
    signal,
    headers,
  } = (options ?? {}) as {
    params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
    cursor?: string;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  };
  let cursor = start;
  do {
    signal?.throwIfAborted();
    const { data, error, response } = await client.GET(path, {
      params: { ...params, query: { ...params?.query, cursor } },
      signal,
      headers,
    });
    if (error !== undefined || data === undefined) throw new ApiError((error ?? {}) as Partial<ApiProblem>, response);
    const page = data as ListPage<P>;
    yield page;
    cursor = page.has_more ? (page.next_cursor ?? undefined) : undefined;
  } while (cursor);
}

/**
 * Every item of a list, page after page, newest first. Works for every list of the contract (leads, conversations,
 * messages, tickets, events, webhooks, deliveries, …). Throws `ApiError` on an error answer.
 *
 * @example
 * const controller = new AbortController();
 * for await (const delivery of paginate(client, "/v1/webhooks/{webhook_id}/deliveries", {
 *   params: { path: { webhook_id: "wh_01J…" }, query: { limit: 100 } },
 *   signal: controller.signal,
 * })) {
 *   console.log(delivery.id, delivery.status);
 * }
 */
export async function* paginate<P extends ListPath>(
  client: PageFetcher,
  path: P,
  ...options: PaginateArgs<P>
): AsyncGenerator<ListItem<P>, void, undefined> {
  for await (const page of pages(client, path, ...options)) yield* page.data as ListItem<P>[];
}
