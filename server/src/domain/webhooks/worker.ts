/**
 * The delivery worker. Jobs come from pg-boss; the worker is woken by `NOTIFY webhook_work` when a transaction that
 * enqueued deliveries commits, so a delivery starts milliseconds after the change instead of at the next poll
 * (a one-second poll remains for delayed retries and missed notifications).
 *
 * One attempt: sign with every current secret, POST the stored body to the pinned address (SSRF guard), 15 s
 * timeout, no redirects, keep the first 4 KiB of the answer; then, in one transaction, record the attempt, move the
 * delivery on (succeeded, a retry enqueued with its delay, or failed) and keep the subscription's health (410
 * disables it; failing for 5 days straight disables it).
 */
import { Agent, request } from "node:https";
import type pg from "pg";
import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { ConnectionSettings } from "../../db/database.ts";
import { startListener } from "../../db/listener.ts";
import { withTransaction } from "../../db/transaction.ts";
import { isDatabaseUnavailable } from "../../db/unavailable.ts";
import { DELIVERY_QUEUE, type DeliveryJob, type Enqueue, WORK_CHANNEL } from "./deliveries.ts";
import { DISABLE_AFTER_FAILING_MS, nextStep } from "./schedule.ts";
import { deliveryHeaders, signatureHeader } from "./signature.ts";
import { pinnedLookup, type UrlCheckOptions } from "./ssrf.ts";
import { signingSecrets, type WebhookRow } from "./webhooks.ts";

export const RESPONSE_BODY_LIMIT_BYTES = 4096;
/** How long past its timeout an attempt's lease lasts before the delivery counts as lost. */
const LEASE_MARGIN_SECONDS = 5;
const POLL_INTERVAL_MS = 1_000;
const SWEEP_INTERVAL_MS = 5_000;
const BATCH_SIZE = 50;

export interface WorkerOptions {
  pool: pg.Pool;
  queue: PgBoss;
  settings: ConnectionSettings;
  enqueue: Enqueue;
  logger: Logger;
  urls: UrlCheckOptions;
  schedule: readonly number[];
  /** One attempt's timeout (WEBHOOK_TIMEOUT_MS; its default lives in config.ts). */
  timeoutMs: number;
}

interface AttemptResult {
  status: number | undefined;
  retryAfter: string | undefined;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** One HTTP POST; never throws: every failure is an attempt result. */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { agent: Agent; lookup: ReturnType<typeof pinnedLookup>; timeoutMs: number },
): Promise<AttemptResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const req = request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        agent: options.agent,
        lookup: options.lookup,
        timeout: options.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_BODY_LIMIT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - size));
          size += chunk.length;
        });
        const done = () =>
          finish({
            status: res.statusCode,
            retryAfter: res.headers["retry-after"],
            body: Buffer.concat(chunks).toString("utf8"),
            error:
              res.statusCode && res.statusCode >= 300 && res.statusCode < 400
                ? `redirect to ${res.headers.location ?? "?"} not followed`
                : null,
          });
        res.on("end", done);
        res.on("error", done);
      },
    );
    req.on("timeout", () => {
      req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    });
    req.on("error", (error) => finish({ status: undefined, retryAfter: undefined, body: null, error: error.message }));
    req.end(body);
  });
}

export async function startDeliveryWorker(options: WorkerOptions): Promise<{ stop(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const lookup = pinnedLookup(options.urls);
  const timeoutMs = options.timeoutMs;
  let stopped = false;
  let draining: Promise<void> | undefined;
  let again = false;

  const attempt = async (deliveryId: string): Promise<void> => {
    const { rows } = await options.pool.query<
      WebhookRow & {
        delivery_status: string;
        attempt_count: number;
        event_id: string;
        event_type: string;
        payload: string;
        delivery_id: string;
      }
    >(
      `SELECT w.*, d.id AS delivery_id, d.status AS delivery_status, d.attempt_count, d.event_id, d.event_type, d.payload
         FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $1`,
      [deliveryId],
    );
    const row = rows[0];
    if (row?.delivery_status !== "pending") return;
    if (!row.enabled) {
      await options.pool.query(
        "UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now() WHERE id = $1",
        [deliveryId],
      );
      return;
    }
    const number = row.attempt_count + 1;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = signatureHeader(signingSecrets(row), row.event_id, timestamp, row.payload);
    const headers = deliveryHeaders({
      eventId: row.event_id,
      eventType: row.event_type,
      deliveryId,
      timestamp,
      signature,
    });
    const startedAt = new Date();
    const result = await post(row.url, headers, row.payload, { agent, lookup, timeoutMs });
    const step = nextStep({
      attempt: number,
      status: result.status,
      retryAfter: result.retryAfter,
      schedule: options.schedule,
      now: Date.now(),
    });
    await withTransaction(options.pool, async (db) => {
      await db.query(
        `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [deliveryId, number, startedAt, result.durationMs, result.status ?? null, result.body, result.error],
      );
      const status = step.kind === "delivered" ? "succeeded" : step.kind === "retry" ? "pending" : "failed";
      const delay = step.kind === "retry" ? step.delaySeconds : null;
      await db.query(
        `UPDATE deliveries SET status = $2, attempt_count = $3, updated_at = now(), leased_until = NULL,
                next_attempt_at = CASE WHEN $4::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $4::float8) END
          WHERE id = $1`,
        [deliveryId, status, number, delay],
      );
      if (step.kind === "delivered") {
        await db.query("UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL", [
          row.id,
        ]);
      } else if (step.kind === "gone") {
        await db.query(
          "UPDATE webhooks SET enabled = false, disabled_reason = 'endpoint_gone', updated_at = now() WHERE id = $1",
          [row.id],
        );
      } else {
        const { rows: health } = await db.query<{ failing_since: Date }>(
          "UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = $1 RETURNING failing_since",
          [row.id],
        );
        const since = health[0]?.failing_since;
        if (since && Date.now() - since.getTime() > DISABLE_AFTER_FAILING_MS) {
          await db.query(
            "UPDATE webhooks SET enabled = false, disabled_reason = 'failing', updated_at = now() WHERE id = $1",
            [row.id],
          );
        }
      }
      if (step.kind === "retry") await options.enqueue(db, [deliveryId], step.delaySeconds);
    });
    // A retry is due at a known time: wake then, rather than at the next poll after it.
    if (step.kind === "retry") setTimeout(() => wake(), step.delaySeconds * 1000 + 20).unref();
  };

  const drain = async (): Promise<void> => {
    do {
      again = false;
      for (;;) {
        if (stopped) return;
        const jobs = await options.queue.fetch<DeliveryJob>(DELIVERY_QUEUE, { batchSize: BATCH_SIZE });
        if (jobs.length === 0) break;
        // The lease, taken at once for the batch: if this process dies before the attempts finish, the sweep finds
        // the deliveries when it runs out (pg-boss's own job expiry is the backstop for the moment in between).
        await options.pool.query(
          `UPDATE deliveries SET leased_until = now() + make_interval(secs => $2) WHERE id = ANY($1) AND status = 'pending'`,
          [jobs.map((job) => job.data.deliveryId), timeoutMs / 1000 + LEASE_MARGIN_SECONDS],
        );
        await Promise.all(
          jobs.map(async (job) => {
            try {
              await attempt(job.data.deliveryId);
              await options.queue.complete(DELIVERY_QUEUE, job.id);
            } catch (error) {
              const level = isDatabaseUnavailable(error) ? "warn" : "error";
              options.logger[level]({ err: error, delivery: job.data.deliveryId }, "delivery job failed");
              await options.queue.fail(DELIVERY_QUEUE, job.id).catch(() => undefined);
            }
          }),
        );
      }
    } while (again);
  };
  /**
   * At least once: a delivery whose attempt started but never finished (its worker was killed) is enqueued again
   * when its lease runs out. The receiver deduplicates by webhook-id.
   */
  const sweep = async () => {
    await withTransaction(options.pool, async (db) => {
      const { rows } = await db.query<{ id: string }>(
        `UPDATE deliveries SET leased_until = NULL
          WHERE status = 'pending' AND leased_until IS NOT NULL AND leased_until < now() RETURNING id`,
      );
      if (rows.length > 0) {
        options.logger.warn({ deliveries: rows.length }, "re-enqueuing deliveries whose attempt never finished");
        await options.enqueue(
          db,
          rows.map((row) => row.id),
        );
      }
    });
  };

  const wake = () => {
    if (draining) {
      again = true;
      return;
    }
    draining = drain()
      .catch((error) =>
        // While the database is down every poll fails the same way: a warning, and the next poll tries again.
        isDatabaseUnavailable(error)
          ? options.logger.warn({ err: error }, "delivery worker waiting for the database")
          : options.logger.error({ err: error }, "delivery worker failed"),
      )
      .finally(() => {
        draining = undefined;
      });
  };

  const resync = () =>
    void sweep()
      .catch((error) => options.logger.warn({ err: error }, "sweep failed"))
      .finally(wake);
  // After a lost LISTEN connection, notifications sent meanwhile are gone: sweep and drain on reconnection.
  let listening = false;
  const listener = await startListener({
    settings: options.settings,
    channel: WORK_CHANNEL,
    name: "service-webhook-worker",
    logger: options.logger,
    onNotification: wake,
    onConnect: () => {
      if (listening) resync();
    },
  });
  listening = true;
  const timer = setInterval(wake, POLL_INTERVAL_MS);
  timer.unref();
  const sweeper = setInterval(
    () => void sweep().catch((error) => options.logger.warn({ err: error }, "sweep failed")),
    SWEEP_INTERVAL_MS,
  );
  sweeper.unref();
  await sweep();
  wake();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(sweeper);
      await draining;
      await listener.stop();
      agent.destroy();
    },
  };
}
