/**
 * Retries, timeouts and cancellation. The decision (`retryDelayMs`) is a pure function; `resilientFetch` is the thin
 * executor around a `fetch`.
 *
 * What is retried: network failures and attempt timeouts, 429, 500, 502, 503, 504, and 409 `IDEMPOTENCY_KEY_IN_USE`
 * (the first request with that key is still running). Writes are safe to retry because the client puts an
 * `Idempotency-Key` on each one before the first attempt, and every attempt sends that same request.
 */
import { problemResponse } from "./errors.js";

export interface RetryPolicy {
  /** Retries after the first attempt (default 3; 0 turns retries off). */
  maxRetries: number;
  /** The first backoff step, in milliseconds (default 500). */
  baseDelayMs: number;
  /** The longest backoff between attempts when the answer gave no `Retry-After`, in milliseconds (default 30 000). */
  maxDelayMs: number;
  /** A `Retry-After` above this many seconds is not waited for: the call ends with that answer (default 60). */
  maxRetryAfterSeconds: number;
}

export interface ResilienceOptions extends RetryPolicy {
  /** The longest one attempt may take, answer body included, in milliseconds (default 30 000). */
  timeoutMs: number;
  /** The longest the whole call may take, every attempt and wait included, in milliseconds (default 120 000). */
  deadlineMs: number;
  /** For tests: the source of jitter (default `Math.random`). */
  random?: () => number;
}

/** What came of one attempt: an answer (its status, error code and `Retry-After`), or no answer at all. */
export type AttemptOutcome =
  | { kind: "answer"; status: number; code?: string | undefined; retryAfter?: string | null | undefined }
  | { kind: "no-answer" };

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * Milliseconds to wait from a `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date), or undefined
 * when absent or unreadable.
 *
 * @example
 * retryAfterMs("3"); // 3000
 */
export function retryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date names its day ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone would also read "-1" as a year.
  if (!/^[A-Za-z]{3}, /.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with full jitter (0 to base·2^attempt, capped). */
function backoffMs(
  attempt: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  random: () => number = Math.random,
): number {
  return random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

/** Whether an outcome is worth another attempt at all (before counting attempts and time). */
function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === "no-answer") return true;
  return RETRY_STATUSES.has(outcome.status) || (outcome.status === 409 && outcome.code === "IDEMPOTENCY_KEY_IN_USE");
}

/**
 * How long to wait before the next attempt, or undefined when the call must end with this outcome: not retryable,
 * no retries left, a `Retry-After` above `maxRetryAfterSeconds` (retrying earlier than the server asked would only
 * be refused again), or a wait that would pass the deadline.
 *
 * @example
 * retryDelayMs({ kind: "answer", status: 429, retryAfter: "2" }, 0, policy, 60_000); // 2000
 */
export function retryDelayMs(
  outcome: AttemptOutcome,
  attempt: number,
  policy: RetryPolicy,
  remainingMs: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.maxRetries || !isRetryable(outcome)) return undefined;
  const asked = outcome.kind === "answer" ? retryAfterMs(outcome.retryAfter, now) : undefined;
  if (asked !== undefined && asked > policy.maxRetryAfterSeconds * 1000) return undefined;
  // Retry-After is honoured exactly: never earlier than asked.
  const wait = asked ?? backoffMs(attempt, policy, random);
  return wait < remainingMs ? wait : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A signal that aborts with a `TimeoutError` after `ms`. Its timer holds the signal and everything in `keep`:
 * AbortSignal.any() tracks its sources weakly, and an `AbortSignal.timeout()` that only a composite signal refers to
 * can be garbage-collected before it fires (seen on Node 20: a call to a silent server then hung past its timeout).
 * The timer is unref'd: it never keeps a process alive.
 */
function timeoutSignal(ms: number, keep: unknown[]): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    keep.at(0); // referenced here, so the timer's closure holds it until it fires
    controller.abort(new DOMException(`The operation timed out after ${ms} ms.`, "TimeoutError"));
  }, ms);
  (timer as { unref?: () => void }).unref?.();
  return controller.signal;
}

/** The promise, or the signal's reason as soon as it aborts (a fetch that ignores its signal cannot hang a call). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function errorCode(raw: string): string | undefined {
  try {
    const body: unknown = JSON.parse(raw);
    if (typeof body === "object" && body !== null && "code" in body && typeof body.code === "string") return body.code;
  } catch {
    // Not JSON: no code.
  }
  return undefined;
}

/**
 * A `fetch` that never hangs and retries what is safe to retry. Each attempt ends at `timeoutMs` (a `TimeoutError`);
 * the whole call at `deadlineMs`; the request's own signal (the caller's `signal`) cancels an attempt or a wait
 * between attempts at once, with the signal's reason. An error answer is returned as a problem JSON response
 * (see `problemResponse`); a failure without an answer rejects, as `fetch` does.
 */
export function resilientFetch(
  fetchImpl: (request: Request) => Promise<Response>,
  options: ResilienceOptions,
): (request: Request) => Promise<Response> {
  const random = options.random ?? Math.random;
  return async function fetchWithRetries(request: Request): Promise<Response> {
    const started = Date.now();
    // The body, read once: every attempt sends these bytes. A `clone()` per attempt would tee the body's stream, and
    // Node 22's fetch may refuse the stream an aborted attempt left behind ("TypeError: unusable") at the next clone.
    const body = request.body === null ? null : await request.arrayBuffer();
    // Held by the deadline's timer: the signals stay alive, and armed, while openapi-fetch reads the answer's body.
    const held: unknown[] = [request];
    const call = AbortSignal.any([request.signal, timeoutSignal(options.deadlineMs, held)]);
    held.push(call);
    for (let attempt = 0; ; attempt++) {
      call.throwIfAborted();
      const signal = AbortSignal.any([call, timeoutSignal(options.timeoutMs, held)]);
      held.push(signal);
      let outcome: AttemptOutcome;
      let failure: unknown;
      let answer: { response: Response; raw: string } | undefined;
      try {
        // A request per attempt, with every header of the call's (the Idempotency-Key included) and its body.
        const response = await raceAbort(fetchImpl(new Request(request, { body, signal })), signal);
        if (response.ok || response.status < 400) return response;
        const raw = await raceAbort(response.text(), signal);
        answer = { response, raw };
        outcome = {
          kind: "answer",
          status: response.status,
          code: errorCode(raw),
          retryAfter: response.headers.get("retry-after"),
        };
      } catch (error) {
        // The caller's abort and the deadline end the call; a network failure or an attempt timeout may be retried.
        if (call.aborted) throw call.reason;
        failure = error;
        outcome = { kind: "no-answer" };
      }
      const remaining = options.deadlineMs - (Date.now() - started);
      const wait = retryDelayMs(outcome, attempt, options, remaining, Date.now(), random);
      if (wait === undefined) {
        if (answer) return problemResponse(answer.response, answer.raw);
        throw failure;
      }
      await sleep(wait, call);
    }
  };
}
