/**
 * The sequencer: numbers committed events in commit order (decision 0010). A change writes its events to the outbox
 * in its own transaction; a pass (`sequence_events()`, migration 0010) moves the committed ones into `events` with the
 * next numbers of their workspace, lets `onSequenced` write what follows from them (their webhook deliveries) in the
 * same transaction, and wakes every process's waiting readers with one NOTIFY on STREAM_CHANNEL.
 *
 * Every process runs one: a write asks for a pass once it has committed (`settle`) and answers after it, so a client
 * that got its 2xx finds the change's events listed; a timer runs a pass every POLL_INTERVAL_MS for the events of a
 * process that died between its commit and its pass. Passes of all processes are serialised by the function's lock.
 */
import type pg from "pg";
import type { Logger } from "pino";
import type { Queryable } from "../../db/queryable.ts";
import { releaseAfterFailure } from "../../db/transaction.ts";
import { type SequencedRow, sequenceEvents } from "./events.store.ts";

/** The NOTIFY channel of numbered events; its payload is the workspaces that have new events, or `*`. */
export const STREAM_CHANNEL = "event_stream";
/** The outbox rows one pass looks at (it takes their transactions whole); a full pass is followed by another at once. */
const PASS_ROWS = 1_000;
/** How often a pass runs without being asked: the bound on how late a dead process's committed events appear. */
const POLL_INTERVAL_MS = 1_000;
/**
 * How often a process vacuums the outbox. Every event passes through it once (inserted, then deleted by a pass), so
 * its dead rows pile up faster than autovacuum may come (and some machines run without it); the pass walks them by
 * the primary key, but the index and the table keep growing until a vacuum. `SKIP_LOCKED`: one process at a time.
 */
const VACUUM_EVERY_POLLS = 30;
/** A write waits at most this long for the pass that numbers its events, then answers anyway. */
const SETTLE_TIMEOUT_MS = 2_000;
/**
 * A pass that waits this long for the lock gives up (the holder is stuck); one whose process stops mid-transaction is
 * ended by PostgreSQL after the idle timeout, which frees the lock for the others.
 */
const LOCK_TIMEOUT_MS = 5_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;
/** NOTIFY's payload must stay under 8,000 bytes: past this many workspaces, wake every reader. */
const MAX_NOTIFIED_WORKSPACES = 200;

/** What follows from numbered events, in the pass's transaction: webhooks/fan-out.ts writes their deliveries. */
export type OnSequenced = (db: Queryable, events: readonly SequencedRow[]) => Promise<void>;

export interface Sequencer {
  /** Resolves once a pass that started after this call has ended (or SETTLE_TIMEOUT_MS passed); never rejects. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export interface SequencerOptions {
  pool: pg.Pool;
  logger: Logger;
  onSequenced: OnSequenced;
  /** Run passes on a timer (off in tests that drive passes themselves). */
  poll?: boolean;
}

/** The NOTIFY payload for the workspaces of these events. */
function streamNotification(events: readonly { workspace_id: string }[]): string {
  const workspaces = [...new Set(events.map((event) => event.workspace_id))];
  return workspaces.length > MAX_NOTIFIED_WORKSPACES ? "*" : workspaces.join(",");
}

/** One pass in its own transaction; returns how many events it numbered. */
export async function runPass(pool: pg.Pool, onSequenced: OnSequenced): Promise<number> {
  const client = await pool.connect();
  try {
    const events = await sequenceEvents(client, PASS_ROWS, {
      lockTimeoutMs: LOCK_TIMEOUT_MS,
      idleTimeoutMs: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    });
    if (events.length > 0) {
      await onSequenced(client, events);
      await client.query({
        text: `SELECT pg_notify('${STREAM_CHANNEL}', ${client.escapeLiteral(streamNotification(events))}); COMMIT`,
      } as pg.QueryConfig);
    } else {
      await client.query("COMMIT");
    }
    client.release();
    return events.length;
  } catch (error) {
    await releaseAfterFailure(client, error);
    throw error;
  }
}

export function startSequencer(options: SequencerOptions): Sequencer {
  const { pool, logger, onSequenced } = options;
  /** The callers waiting for the next pass to start and end. */
  let waiting: (() => void)[] = [];
  let running: Promise<void> | undefined;
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;

  const passUntilDrained = async () => {
    // A full pass leaves more behind: go on until one is not full.
    while ((await runPass(pool, onSequenced)) >= PASS_ROWS) {
      /* next batch */
    }
  };

  const run = (): Promise<void> => {
    const served = waiting;
    waiting = [];
    running = passUntilDrained()
      .then(() => {
        if (failing) logger.info("event sequencer passes succeed again");
        failing = false;
      })
      .catch((error: unknown) => {
        // The events stay in the outbox for the next pass; a write that waited answers anyway (it has committed).
        // One warning an outage, not one a second.
        if (!stopped && !failing) logger.warn({ err: error }, "event sequencer pass failed; retrying every second");
        failing = true;
      })
      .finally(() => {
        for (const resolve of served) resolve();
        running = undefined;
        if (waiting.length > 0 && !stopped) void run();
      });
    return running;
  };

  let polls = 0;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      if (!running) void run();
      if (++polls % VACUUM_EVERY_POLLS === 0) {
        pool.query("VACUUM (SKIP_LOCKED) event_outbox").catch((error: unknown) => {
          if (!stopped) logger.debug({ err: error }, "vacuum of the event outbox failed");
        });
      }
      schedule();
    }, POLL_INTERVAL_MS);
    timer.unref();
  };
  if (options.poll !== false) schedule();

  return {
    settle() {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const deadline = setTimeout(resolve, SETTLE_TIMEOUT_MS);
        deadline.unref();
        waiting.push(() => {
          clearTimeout(deadline);
          resolve();
        });
        // A pass in flight may have read before this caller's commit: the caller waits for the one after it.
        if (!running) void run();
      });
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      for (const resolve of waiting) resolve();
      waiting = [];
    },
  };
}
