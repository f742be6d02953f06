/**
 * The readers of `/v1/events?after_sequence=…&wait=S` that found nothing yet, waiting for their workspace's next
 * numbered event without holding a database connection: one LISTEN connection per process (STREAM_CHANNEL, sent by
 * every sequencer pass that numbers something) wakes them all, whatever their number. A woken reader reads again;
 * when the LISTEN is lost or re-established every reader is woken, and while it is down a reader waits at most
 * UNLISTENED_WAIT_MS before it reads again, so none sleeps through a notification that could not reach it.
 */
import type { Logger } from "pino";
import type { ConnectionSettings } from "../../db/database.ts";
import { startListener } from "../../db/listener.ts";
import { STREAM_CHANNEL } from "./sequencer.ts";

/** How long a reader waits between reads while the LISTEN connection is down. */
const UNLISTENED_WAIT_MS = 1_000;

export interface StreamWaiters {
  /**
   * A mark of the notifications received so far: taken before a read, and given to `wait` after it, so that an event
   * numbered while the read ran (its notification came before the reader waited) is not slept through.
   */
  mark(): number;
  /**
   * Resolves when an event of this workspace is numbered, after `ms`, or when `signal` aborts, whichever is first; at
   * once when a notification came after `since` (`mark()`). Never rejects.
   */
  wait(workspaceId: string, ms: number, signal?: AbortSignal, since?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStreamWaiters(options: {
  settings: ConnectionSettings;
  logger: Logger;
}): Promise<StreamWaiters> {
  const byWorkspace = new Map<string, Set<() => void>>();

  const wake = (workspaceId: string) => {
    const waiting = byWorkspace.get(workspaceId);
    if (!waiting) return;
    byWorkspace.delete(workspaceId);
    for (const resolve of waiting) resolve();
  };
  const wakeAll = () => {
    for (const workspaceId of [...byWorkspace.keys()]) wake(workspaceId);
  };
  // Every notification, connection and loss counts: a reader that read before one and waits after it reads again.
  let notified = 0;

  const listener = await startListener({
    settings: options.settings,
    channel: STREAM_CHANNEL,
    name: "event-stream",
    logger: options.logger,
    onNotification(payload) {
      notified++;
      if (!payload || payload === "*") wakeAll();
      else for (const workspaceId of payload.split(",")) wake(workspaceId);
    },
    onConnect: () => {
      notified++;
      wakeAll();
    },
    onLost: () => {
      notified++;
      wakeAll();
    },
  });

  return {
    mark: () => notified,
    wait(workspaceId, ms, signal, since) {
      if (since !== undefined && since !== notified) return Promise.resolve();
      return new Promise<void>((resolve) => {
        let waiting = byWorkspace.get(workspaceId);
        if (!waiting) {
          waiting = new Set();
          byWorkspace.set(workspaceId, waiting);
        }
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          const set = byWorkspace.get(workspaceId);
          set?.delete(done);
          if (set?.size === 0) byWorkspace.delete(workspaceId);
          resolve();
        };
        const timer = setTimeout(done, listener.connected ? ms : Math.min(ms, UNLISTENED_WAIT_MS));
        if (signal?.aborted) return done();
        signal?.addEventListener("abort", done, { once: true });
        waiting.add(done);
      });
    },
    async stop() {
      await listener.stop();
      wakeAll();
    },
  };
}
