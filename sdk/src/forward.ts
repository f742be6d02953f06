/**
 * One event of `listen` POSTed to the local receiver, signed as a webhook delivery is (Standard Webhooks headers and
 * `X-Service-Signature`), and what to do with the answer. The decisions (`forwardVerdict`, `forwardRetryMs`) are pure;
 * `forwardOnce` is the thin executor.
 *
 * Node.js only (it signs with node:crypto).
 */
import { createHmac, randomBytes } from "node:crypto";
import { retryAfterMs } from "./retry.js";

/** How long the forward target has to answer, as a webhook receiver has. */
const FORWARD_TIMEOUT_MS = 15_000;
/** The backoff between tries of one event: 0.5 s, 1 s, 2 s, … at most 30 s. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** A new signing secret, as the service makes them: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * The Standard Webhooks signature of one delivery: `v1,` and the base64 HMAC-SHA256, keyed by the secret's bytes, of
 * `{webhook-id}.{webhook-timestamp}.{body}`.
 *
 * @example
 * sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_01JD…", 1764000000, '{"id":"evt_01JD…"}'); // "v1,…"
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A delivery id of the contract's pattern (`dlv_` and a ULID) for one forward. */
function deliveryId(now = Date.now()): string {
  let time = "";
  for (let rest = now, i = 0; i < 10; i++, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time;
  const random = [...randomBytes(16)].map((byte) => CROCKFORD[byte & 31]).join("");
  return `dlv_${time}${random}`;
}

/**
 * What `listen` does after one try: `accepted` (a 2xx: move on), `skip` (refused, and `--skip-refused` was given:
 * move on, saying so) or `retry`. Refused means the receiver answered and turned the event down (3xx, 4xx but 408 and
 * 429); no answer, 408, 429 and 5xx are a receiver not ready yet, so even `--skip-refused` tries those again. Anything
 * but a 2xx leaves the position where it is: moving past an event the receiver did not take would lose it for good.
 *
 * @example
 * forwardVerdict(400, false); // "retry"
 * forwardVerdict(400, true); // "skip"
 * forwardVerdict(503, true); // "retry"
 */
export function forwardVerdict(status: number | undefined, skipRefused: boolean): "accepted" | "skip" | "retry" {
  if (status !== undefined && status >= 200 && status < 300) return "accepted";
  return skipRefused && isRefusal(status) ? "skip" : "retry";
}

/** Whether the receiver answered and turned the event down (as opposed to not being ready for it). */
export function isRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 300 && status < 500 && status !== 408 && status !== 429;
}

/**
 * How long to wait before the next try of one event: the receiver's `Retry-After` when it sent one (the receiver
 * script answers 503 with one until its secret is pasted), else capped exponential backoff; at most 30 s either way.
 *
 * @example
 * forwardRetryMs(0, null); // 500
 * forwardRetryMs(10, null); // 30000
 * forwardRetryMs(0, "5"); // 5000
 */
export function forwardRetryMs(attempt: number, retryAfter: string | null, firstMs = FIRST_RETRY_MS): number {
  return Math.min(MAX_RETRY_MS, retryAfterMs(retryAfter) ?? firstMs * 2 ** attempt);
}

/** What one try came to: the receiver's status (absent when it did not answer) and how long it took. */
export interface ForwardOutcome {
  status?: number;
  retryAfter: string | null;
  ms: number;
  /** Why there was no answer. */
  failure?: string;
}

/** POSTs one event to `url`, signed with `secret`, as one webhook delivery attempt; never throws. */
export async function forwardOnce(
  send: typeof fetch,
  url: string,
  secret: string,
  event: { id: string; type: string },
  body: string,
): Promise<ForwardOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = sign(secret, event.id, timestamp, body);
  const started = performance.now();
  try {
    const response = await send(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
        "x-service-signature": signature,
        "x-service-event": event.type,
        "x-service-delivery": deliveryId(),
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    const ms = Math.round(performance.now() - started);
    return { status: response.status, retryAfter: response.headers.get("retry-after"), ms };
  } catch (error) {
    // fetch's own message is "fetch failed"; the reason (ECONNREFUSED, a timeout) is its cause.
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    const message = error instanceof Error ? error.message : String(error);
    const failure = typeof cause === "string" ? `${message} (${cause})` : message;
    return { retryAfter: null, ms: Math.round(performance.now() - started), failure };
  }
}
