/**
 * One attempt of one delivery: sign the stored body with every secret that signs now, POST it to the address the SSRF
 * guard checked (pinned at connection time), within the timeout, without following redirects, and keep the first
 * 4 KiB of the answer; then say what the answer means for the delivery and for its subscription.
 *
 * Only `post` does I/O; `attemptHeaders` and `classify` are pure and tested by table (deliver.test.ts).
 */
import { Agent, request } from "node:https";
import { attemptTraceHeaders, inAttemptSpan, type StoredTrace } from "../../lib/trace-context.ts";
import { nextStep } from "./schedule.ts";
import { deliveryHeaders, signatureHeader, signingSecrets } from "./signature.ts";
import { pinnedLookup, type UrlCheckOptions } from "./ssrf.ts";

export const RESPONSE_BODY_LIMIT_BYTES = 4096;

/** What an attempt needs to know of its delivery and subscription. */
export interface Target extends StoredTrace {
  id: string;
  webhook_id: string;
  attempt_count: number;
  /** The attempt count when the current round of the schedule began (a recovery starts one). */
  schedule_offset: number;
  event_id: string;
  event_type: string;
  payload: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** The receiver's answer; `status` is undefined when there was none (timeout, refused, TLS, DNS, SSRF guard). */
export interface Answer {
  status: number | undefined;
  retryAfter: string | undefined;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** What becomes of a delivery after an attempt. */
export type Next = { status: "succeeded" } | { status: "failed" } | { status: "pending"; delaySeconds: number };

/**
 * What an answer says about the subscription: `healthy` ends a failing streak, `failing` starts or continues one
 * (5 days of it disable the subscription), `gone` (410) disables it at once.
 */
export type Health = "healthy" | "failing" | "gone";

/** An attempt, classified: everything deliveries.store.ts `saveOutcomes` writes. */
export interface Outcome {
  deliveryId: string;
  webhookId: string;
  attempt: {
    number: number;
    startedAt: Date;
    durationMs: number;
    status: number | null;
    body: string | null;
    error: string | null;
    /** The headers sent (the signatures, never the secret). */
    requestHeaders: Record<string, string>;
  };
  next: Next;
  health: Health;
}

/** The connection side of attempts: one keep-alive agent and the SSRF guard's pinned lookup. */
export interface DeliveryHttp {
  agent: Agent;
  lookup: ReturnType<typeof pinnedLookup>;
  /** One attempt's deadline (WEBHOOK_TIMEOUT_MS; its default lives in config.ts). */
  timeoutMs: number;
}

export function createDeliveryHttp(urls: UrlCheckOptions, timeoutMs: number): DeliveryHttp {
  return { agent: new Agent({ keepAlive: true, maxSockets: 50 }), lookup: pinnedLookup(urls), timeoutMs };
}

/** The headers of attempt at unix time `timestamp` (seconds): `webhook-id` is the event's, the same on every retry. */
export function attemptHeaders(target: Target, timestamp: string, now = Date.now()): Record<string, string> {
  return deliveryHeaders({
    eventId: target.event_id,
    eventType: target.event_type,
    deliveryId: target.id,
    timestamp,
    signature: signatureHeader(signingSecrets(target, now), target.event_id, timestamp, target.payload),
  });
}

/**
 * What follows attempt number `attempt` (1-based) that got `answer`.
 *
 * @example
 * classify({ status: 503, retryAfter: "120", … }, { attempt: 1, schedule: [5, 300], now })
 * // { next: { status: "pending", delaySeconds: 120 }, health: "failing" }
 */
export function classify(
  answer: Pick<Answer, "status" | "retryAfter">,
  input: { attempt: number; schedule: readonly number[]; now: number; random?: () => number },
): { next: Next; health: Health } {
  const step = nextStep({ ...input, status: answer.status, retryAfter: answer.retryAfter });
  switch (step.kind) {
    case "delivered":
      return { next: { status: "succeeded" }, health: "healthy" };
    case "gone":
      return { next: { status: "failed" }, health: "gone" };
    case "retry":
      return { next: { status: "pending", delaySeconds: step.delaySeconds }, health: "failing" };
    case "give-up":
      return { next: { status: "failed" }, health: "failing" };
  }
}

/** One attempt of `target`, classified. Never throws: every failure of the receiver is an answer. */
export function deliver(target: Target, http: DeliveryHttp, schedule: readonly number[]): Promise<Outcome> {
  const number = target.attempt_count + 1;
  const attributes = {
    "webhook.delivery_id": target.id,
    "webhook.subscription_id": target.webhook_id,
    "webhook.event_id": target.event_id,
    "webhook.attempt": number,
  };
  return inAttemptSpan(target, `webhook attempt ${target.event_type}`, attributes, async (spanId, end) => {
    const startedAt = new Date();
    const headers = {
      ...attemptHeaders(target, String(Math.floor(startedAt.getTime() / 1000)), startedAt.getTime()),
      "content-length": String(Buffer.byteLength(target.payload)),
      ...attemptTraceHeaders(target, spanId),
    };
    const answer = await post(target.url, headers, target.payload, http);
    end(answer.status);
    return {
      deliveryId: target.id,
      webhookId: target.webhook_id,
      attempt: {
        number,
        startedAt,
        durationMs: answer.durationMs,
        status: answer.status ?? null,
        body: answer.body,
        error: answer.error,
        requestHeaders: headers,
      },
      ...classify(answer, { attempt: number - target.schedule_offset, schedule, now: Date.now() }),
    };
  });
}

/**
 * One HTTP POST; never throws: every failure is an answer, without a status when none came. `timeoutMs` bounds the
 * whole attempt, not only a silence (Node's `timeout` option): a receiver that trickles its answer must not hold the
 * attempt past its job's expiry (delivery-jobs.ts), nor the worker's batch with it.
 */
export function post(url: string, headers: Record<string, string>, body: string, http: DeliveryHttp): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    /** The answer so far, once its head has come. */
    let answered: (() => Omit<Answer, "durationMs">) | undefined;
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${http.timeoutMs} ms`)), http.timeoutMs);
    const finish = (answer: Omit<Answer, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...answer, durationMs: Math.round(performance.now() - started) });
    };
    const req = request(
      url,
      {
        method: "POST",
        headers: { "content-length": String(Buffer.byteLength(body)), ...headers },
        agent: http.agent,
        lookup: http.lookup,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - size));
          size += chunk.length;
        });
        const answer = (): Omit<Answer, "durationMs"> => ({
          status: res.statusCode,
          retryAfter: res.headers["retry-after"],
          // PostgreSQL text and jsonb cannot hold U+0000: a receiver that answers one must not make the outcome
          // impossible to record.
          body: Buffer.concat(chunks).toString("utf8").replaceAll("\u0000", "\uFFFD"),
          error:
            res.statusCode && res.statusCode >= 300 && res.statusCode < 400
              ? `redirect to ${res.headers.location ?? "?"} not followed`
              : res.complete
                ? null
                : `answer cut off after ${Math.round(performance.now() - started)} ms`,
        });
        answered = answer;
        const done = () => finish(answer());
        res.on("end", done);
        // Cut off (the deadline, or the receiver closing early): the status stands, the body is what came.
        res.on("error", done);
        res.on("close", done);
      },
    );
    req.on("error", (error) => finish(answered?.() ?? noAnswer(error.message)));
    req.end(body);
  });
}

function noAnswer(error: string): Omit<Answer, "durationMs"> {
  return { status: undefined, retryAfter: undefined, body: null, error };
}
