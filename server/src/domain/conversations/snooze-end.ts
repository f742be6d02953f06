/**
 * The end of a snooze is a change that no request makes: a pg-boss job, sent in the transaction that sets
 * `snoozed_until` and due then, stores the conversation as `open` and records `conversation.updated` (its own
 * transaction, its own event, numbered like any other). A snooze moved or ended by an update first leaves the job
 * nothing to do: it ends only a conversation still snoozed until no later than now.
 *
 * pg-boss does the timing (`startAfter`), the retry when a worker dies (the job expires and runs again) and the
 * de-duplication of one snooze's job (its id is derived from the conversation and the time); a job due in the future
 * sends no NOTIFY, so the queue's polling interval bounds how late a snooze ends.
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Queryable } from "../../db/queryable.ts";
import { withTransaction } from "../../db/transaction.ts";
import { defineQueue, onClient } from "../../jobs/queue.ts";
import { recordEvent } from "../events/events.service.ts";
import { endSnooze } from "./conversations.service.ts";

const SNOOZE_END_QUEUE = "conversation-snooze-end";
/** How often a worker looks for due snooze ends: the bound on how late past `snoozed_until` a conversation reopens. */
const POLL_INTERVAL_SECONDS = 1;

interface SnoozeEndJob {
  workspace_id: string;
  conversation_id: string;
}

/** One job per conversation and end time: setting the same snooze twice makes one job. */
function snoozeJobId(conversationId: string, until: Date): string {
  const hex = createHash("sha256").update(`${conversationId}@${until.toISOString()}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The scheduler a conversation's update is given (`ConversationWriteDeps.scheduleSnoozeEnd`).
 *
 * @example
 * await scheduleSnoozeEnd(boss)(client, workspaceId, conversationId, new Date("2026-11-02T09:00:00Z"));
 */
export function snoozeEndScheduler(boss: PgBoss) {
  return async (db: Queryable, workspaceId: string, conversationId: string, until: Date): Promise<void> => {
    const data: SnoozeEndJob = { workspace_id: workspaceId, conversation_id: conversationId };
    await boss.send(SNOOZE_END_QUEUE, data, {
      id: snoozeJobId(conversationId, until),
      startAfter: until,
      db: onClient(db),
    });
  };
}

/** Defines the queue, and in worker processes works it. */
export async function registerSnoozeEnds(
  boss: PgBoss,
  deps: { pool: pg.Pool; logger: Logger; settle: () => Promise<void> },
  options: { work: boolean },
): Promise<void> {
  // Retried when the database fails under it; a job that runs twice finds nothing left to end.
  await defineQueue(boss, SNOOZE_END_QUEUE, { retryLimit: 10, retryDelay: 1, retryBackoff: true });
  if (!options.work) return;
  await boss.work<SnoozeEndJob>(
    SNOOZE_END_QUEUE,
    { pollingIntervalSeconds: POLL_INTERVAL_SECONDS, batchSize: 20 },
    async (jobs) => {
      for (const job of jobs) {
        const { workspace_id, conversation_id } = job.data;
        await withTransaction(deps.pool, (client) => endSnooze(client, workspace_id, conversation_id, recordEvent));
      }
      await deps.settle();
    },
  );
  deps.logger.debug({ queue: SNOOZE_END_QUEUE }, "snooze ends scheduled by pg-boss");
}
