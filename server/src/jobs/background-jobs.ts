/**
 * The service's background jobs on the queue (queue.ts): each module registers its own queue and, in a process that
 * works (`work`), its handler and schedule. The webhook deliveries have their own worker (domain/webhooks/worker.ts).
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { registerAuthJobs } from "../domain/auth/auth.jobs.ts";
import { AUTH_QUEUES } from "../domain/auth/auth.service.ts";
import { registerSnoozeEnds } from "../domain/conversations/snooze-end.ts";
import { registerEventRetention } from "../domain/events/retention.ts";
import { registerIdempotencyPruning } from "../domain/idempotency/prune.ts";
import { registerTestDataResets } from "../domain/test-data/test-data.service.ts";
import { defineDeliveryQueue, enqueuePendingDeliveries } from "../domain/webhooks/delivery-jobs.ts";
import { registerWebhookAlerts } from "../domain/webhooks/incidents.ts";
import { registerRecoveries } from "../domain/webhooks/recover.ts";
import { createMailer } from "../mail/mailer.ts";
import { moveLegacyQueue } from "./legacy-queue.ts";

export interface BackgroundJobDeps {
  pool: pg.Pool;
  logger: Logger;
  config: Pick<Config, "smtpUrl" | "mailFrom" | "publicBaseUrl" | "nodeEnv" | "webhookTimeoutMs">;
  /** The sequencer's `settle`: a job that records events answers once they are numbered. */
  settle: () => Promise<void>;
}

export async function registerBackgroundJobs(
  queue: PgBoss,
  deps: BackgroundJobDeps,
  options: { work: boolean },
): Promise<{ stop(): void }> {
  const { pool, logger, config } = deps;
  await defineDeliveryQueue(queue, config.webhookTimeoutMs);
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    pool,
    logger,
    logLinks: config.nodeEnv !== "production",
  });
  const notices = { pool, mailer, publicBaseUrl: config.publicBaseUrl, logger };
  await registerAuthJobs(queue, notices, options);
  await registerWebhookAlerts(queue, notices, options);
  await registerRecoveries(queue, { pool, logger }, options);
  await registerTestDataResets(queue, { pool, logger }, options);
  const pruning = await registerIdempotencyPruning(queue, { pool, logger }, options);
  const retention = await registerEventRetention(queue, { pool, logger }, options);
  await registerSnoozeEnds(queue, { pool, logger, settle: deps.settle }, options);
  const moved = await moveLegacyQueue(queue, pool, {
    queues: Object.values(AUTH_QUEUES),
    alsoMove: (client) => enqueuePendingDeliveries(queue, client),
  });
  if (moved) logger.info({ jobs: moved.jobs, deliveries: moved.more }, "moved the pg-boss 10 queue to pg-boss 12");
  return {
    stop() {
      pruning.stop();
      retention.stop();
    },
  };
}
