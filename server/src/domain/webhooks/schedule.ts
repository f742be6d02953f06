/**
 * When to try a delivery again: pure functions, so the schedule is tested by table.
 *
 * After the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, each ±20 % jitter (so that retries
 * of many deliveries to one endpoint spread out). A 429 or 503 with `Retry-After` waits at least that long.
 */

export const RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
const JITTER = 0.2;
/** A subscription whose deliveries all fail for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

export type AttemptOutcome =
  | { kind: "delivered" }
  | { kind: "gone" }
  | { kind: "retry"; delaySeconds: number }
  | { kind: "give-up" };

/** Seconds to wait from a receiver's `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP date). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * What follows attempt number `attempt` (1-based) that answered `status` (undefined: no answer: timeout, refused,
 * TLS error, redirect).
 */
export function nextStep(input: {
  attempt: number;
  status: number | undefined;
  retryAfter: string | undefined;
  schedule: readonly number[];
  now: number;
  random?: () => number;
}): AttemptOutcome {
  const { status } = input;
  if (status !== undefined && status >= 200 && status < 300) return { kind: "delivered" };
  if (status === 410) return { kind: "gone" };
  const base = input.schedule[input.attempt - 1];
  if (base === undefined) return { kind: "give-up" };
  const random = input.random ?? Math.random;
  let delay = base * (1 - JITTER + 2 * JITTER * random());
  if (status === 429 || status === 503) {
    const asked = parseRetryAfter(input.retryAfter, input.now);
    if (asked !== undefined) delay = Math.max(delay, asked);
  }
  return { kind: "retry", delaySeconds: Math.round(delay * 1000) / 1000 };
}
