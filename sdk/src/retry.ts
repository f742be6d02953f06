/**
 * A `fetch` that retries what is safe to retry: network failures, and 429 and 503 answers. It waits what
 * `Retry-After` asks (RFC 9110 §10.2.3: seconds or an HTTP date), or else an exponential backoff with full jitter,
 * never longer than `maxDelayMs`. Writes are safe to retry because the client gives each one an `Idempotency-Key`,
 * which every attempt reuses (it is on the request before the first attempt).
 */

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  /** The longest single wait, in milliseconds (default 30 000). */
  maxDelayMs: number;
  /** The first backoff step, in milliseconds (default 500). */
  baseDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const RETRY_STATUSES = new Set([429, 503]);

/** Milliseconds to wait from a `Retry-After` value, or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoffMs(attempt: number, options: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs">): number {
  return Math.random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
}

export function retryingFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  options: RetryOptions,
): (request: Request) => Promise<Response> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async function fetchWithRetry(request: Request): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= options.maxRetries;
      let response: Response;
      try {
        // A clone per attempt: a body can be read once.
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoffMs(attempt, options));
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const asked = retryAfterMs(response.headers.get("retry-after"));
      await response.body?.cancel();
      await sleep(Math.min(options.maxDelayMs, asked ?? backoffMs(attempt, options)));
    }
  };
}
