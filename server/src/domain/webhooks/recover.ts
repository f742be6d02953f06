/**
 * Recovery: one call sends again what a subscription did not receive in a window of time.
 *
 * The call (in the request's transaction, idempotent with the request's `Idempotency-Key`) counts what it will send and
 * enqueues one pg-boss job of RECOVER_QUEUE; the job, in chunks of CHUNK, reopens every delivery made in the window that
 * had ended failed by the time of the call (oldest first; each keeps its id, event id and body, and its next attempt
 * starts the retry schedule afresh), then, with `include_missed`, makes the deliveries of the events of the
 * subscription's types that it never got (it was disabled then), in `sequence` order, through the fan-out's own path.
 * Every attempt is enqueued with the subscription's throttles, so the whole recovery reaches the receiver at its pace,
 * and with a pg-boss priority that falls by one along the recovery (jobs made together share their creation time, which
 * leaves pg-boss's fetch free to take them in any order): they are fetched in the recovery's order, and after the live
 * deliveries due beside them (priority 0).
 * The events are read from the change stream (`events`), not from a copy.
 */

import type { components } from "@service/spec/schema";
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Queryable } from "../../db/queryable.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { defineQueue, onClient } from "../../jobs/queue.ts";
import { instantOf } from "../../lib/date-time.ts";
import { firstIdAt } from "../../lib/ids.ts";
import type { SequencedRow } from "../events/events.store.ts";
import { enqueueAttempts } from "./delivery-jobs.ts";
import { deliverEvents } from "./fan-out.ts";
import { throttleOf } from "./throttle.ts";
import { lockWebhook } from "./webhooks.service.ts";
import { holdWebhooks } from "./webhooks.store.ts";

type WebhookRecovery = components["schemas"]["WebhookRecovery"];
type WebhookRecoverRequest = components["schemas"]["WebhookRecoverRequest"];

const RECOVER_QUEUE = "webhook-recover";
/** Deliveries reopened, or events delivered, per transaction of the job. */
const CHUNK = 1_000;

interface RecoverJob {
  workspace_id: string;
  webhook_id: string;
  /** The window, as id bounds of deliveries and of events (ids begin with their creation time). */
  since: string;
  until: string;
  /** The call's time: deliveries that failed after it are not part of this recovery. */
  as_of: string;
  include_missed: boolean;
  /** The last event sequence of the workspace at the call: later events are delivered by the fan-out itself. */
  through_sequence: string;
}

/** The delivery id the fan-out gives event `e` for subscription `$w` (deliveries.store.ts `insertEventDeliveries`). */
const FAN_OUT_ID = "'dlv_' || substr(e.id, 5, 10) || upper(substr(md5(e.id || w.id), 1, 16))";

const MISSED_EVENTS = `FROM events e JOIN webhooks w ON w.id = $2
  WHERE e.workspace_id = $1 AND e.type = ANY (w.events) AND e.id >= $3 AND e.id < $4 AND e.created_at >= w.created_at
    AND e.sequence <= $5 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = ${FAN_OUT_ID})`;

function missedValues(job: RecoverJob) {
  const { since, until } = job;
  return [
    job.workspace_id,
    job.webhook_id,
    firstIdAt("event", Date.parse(since)),
    firstIdAt("event", Date.parse(until)),
    job.through_sequence,
  ];
}

function failedBounds(job: RecoverJob) {
  return [firstIdAt("delivery", Date.parse(job.since)), firstIdAt("delivery", Date.parse(job.until))];
}

/** Counts what a recovery sends and, unless it is a dry run, enqueues its job in the caller's transaction. */
export async function startRecovery(
  boss: PgBoss,
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  input: WebhookRecoverRequest,
): Promise<WebhookRecovery> {
  const webhook = await lockWebhook(db, workspaceId, webhookId, "change");
  const { rows: clock } = await db.query<{ now: Date; through: string }>(
    `SELECT now(), coalesce((SELECT last_sequence FROM event_sequences WHERE workspace_id = $1), 0)::text AS through`,
    [workspaceId],
  );
  const { now, through } = clock[0] as { now: Date; through: string };
  const since = instantOf(input.since);
  const until = input.until === undefined ? now : instantOf(input.until);
  // The field named is one the client sent: without `until` the window ends now, and it is `since` that is wrong.
  if (until.getTime() <= since.getTime() && input.until === undefined) {
    throw new AppError("VALIDATION_FAILED", {
      detail: "`since` must be before now: without `until`, the window ends now.",
      errors: [{ path: "body.since", message: "must be before now (without until, the window ends now)" }],
    });
  }
  if (until.getTime() <= since.getTime()) {
    throw new AppError("VALIDATION_FAILED", {
      detail: "`until` must be after `since`.",
      errors: [{ path: "body.until", message: "must be after since" }],
    });
  }
  const dryRun = input.dry_run ?? false;
  const includeMissed = input.include_missed ?? false;
  if (!webhook.enabled && !dryRun) {
    throw new AppError("INVALID_STATE_TRANSITION", {
      detail: "The subscription is disabled: enable it first, then recover what it missed.",
    });
  }
  const job: RecoverJob = {
    workspace_id: workspaceId,
    webhook_id: webhookId,
    since: since.toISOString(),
    until: until.toISOString(),
    as_of: now.toISOString(),
    include_missed: includeMissed,
    through_sequence: through,
  };
  const { rows: failed } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deliveries
      WHERE webhook_id = $1 AND status = 'failed' AND id >= $2 AND id < $3`,
    [webhookId, ...failedBounds(job)],
  );
  const missed = includeMissed
    ? (await db.query<{ n: number }>(`SELECT count(*)::int AS n ${MISSED_EVENTS}`, missedValues(job))).rows[0]?.n
    : 0;
  if (!dryRun) await boss.send(RECOVER_QUEUE, job, { db: onClient(db) });
  return {
    object: "webhook_recovery",
    webhook_id: webhookId,
    since: job.since,
    until: job.until,
    include_missed: includeMissed,
    dry_run: dryRun,
    failed_deliveries: failed[0]?.n ?? 0,
    missed_events: missed ?? 0,
  };
}

/** Reopens the next chunk of failed deliveries, oldest first, with their next attempts; returns how many. */
async function reopenFailed(boss: PgBoss, db: Queryable, job: RecoverJob, enqueued: number): Promise<number> {
  // The subscription before its deliveries (the lock order); deleted since the call, there is nothing to reopen.
  if ((await holdWebhooks(db, [job.webhook_id])).size === 0) return 0;
  const { rows } = await db.query<{
    id: string;
    attempt_count: number;
    max_deliveries_per_second: number | null;
    max_concurrent_deliveries: number | null;
  }>(
    `WITH reopened AS (
       UPDATE deliveries d
          SET status = 'pending', schedule_offset = d.attempt_count, next_attempt_at = now(), updated_at = now()
        WHERE d.id IN (SELECT id FROM deliveries
                        WHERE webhook_id = $1 AND status = 'failed' AND id >= $2 AND id < $3 AND updated_at <= $4
                        ORDER BY id LIMIT ${CHUNK} FOR UPDATE)
       RETURNING d.id, d.attempt_count)
     SELECT r.id, r.attempt_count, w.max_deliveries_per_second, w.max_concurrent_deliveries
       FROM reopened r JOIN webhooks w ON w.id = $1
      ORDER BY r.id`,
    [job.webhook_id, ...failedBounds(job), job.as_of],
  );
  await enqueueAttempts(
    boss,
    db,
    rows.map((row, i) => ({
      deliveryId: row.id,
      webhookId: job.webhook_id,
      attempt: row.attempt_count + 1,
      throttle: throttleOf(row),
      priority: -(enqueued + i + 1),
    })),
  );
  return rows.length;
}

/** Delivers the next chunk of missed events, in sequence order; returns how many. */
async function deliverMissed(boss: PgBoss, db: Queryable, job: RecoverJob, enqueued: number): Promise<number> {
  const { rows } = await db.query<SequencedRow>(
    `SELECT e.id, e.workspace_id, e.type, e.data, e.created_at, e.sequence, ARRAY[w.id] AS webhook_ids
       ${MISSED_EVENTS} AND w.enabled
      ORDER BY e.sequence LIMIT ${CHUNK}`,
    missedValues(job),
  );
  await deliverEvents(boss, db, rows, -(enqueued + 1));
  return rows.length;
}

/** Defines the recovery queue and, for workers, works it. */
export async function registerRecoveries(
  boss: PgBoss,
  deps: { pool: pg.Pool; logger: Logger },
  options: { work: boolean },
): Promise<void> {
  await defineQueue(boss, RECOVER_QUEUE, {
    notify: true,
    retryLimit: 5,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 15 * 60,
  });
  if (!options.work) return;
  await boss.work<RecoverJob>(RECOVER_QUEUE, { pollingIntervalSeconds: 2 }, async (jobs) => {
    for (const { data } of jobs) {
      let reopened = 0;
      let missed = 0;
      for (let n = CHUNK; n === CHUNK; reopened += n) {
        n = await withTransaction(deps.pool, (client) => reopenFailed(boss, client, data, reopened));
      }
      for (let n = data.include_missed ? CHUNK : 0; n === CHUNK; missed += n) {
        n = await withTransaction(deps.pool, (client) => deliverMissed(boss, client, data, reopened + missed));
      }
      deps.logger.info({ webhook_id: data.webhook_id, reopened, missed }, "webhook recovery enqueued");
    }
  });
}
