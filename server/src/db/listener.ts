/**
 * A LISTEN connection that comes back. A LISTEN lives on one connection: when PostgreSQL restarts, a backend is
 * terminated or a proxy resets, the notifications stop for good unless someone connects again. This one reconnects
 * with capped, jittered backoff, forever until stopped, and calls `onConnect` after every (re)connection so that its
 * owner can resynchronise what it missed (the key cache starts empty).
 */
import pg from "pg";
import type { Logger } from "pino";
import type { ConnectionSettings } from "./database.ts";

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

export interface Listener {
  /** True while the LISTEN is in place: notifications are being received. */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export interface ListenerOptions {
  settings: ConnectionSettings;
  channel: string;
  name: string;
  logger: Logger;
  onNotification(payload: string | undefined): void;
  /** After each successful LISTEN, the first included. */
  onConnect?(): void;
  /** When the connection is lost (before the reconnection is attempted). */
  onLost?(): void;
}

/** The delay before reconnection attempt `attempt` (0-based): doubling from 100 ms, capped at 5 s, ±20 % jitter. */
function reconnectDelayMs(attempt: number, random = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(attempt, 16));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Starts listening; resolves after the first attempt, whether or not it connected (it keeps trying). */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  let client: pg.Client | undefined;
  let connected = false;
  let stopped = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const current = new pg.Client({ ...options.settings, query_timeout: undefined, application_name: options.name });
    client = current;
    let lost = false;
    const onFailure = (error?: Error) => {
      if (lost || stopped) return;
      lost = true;
      const wasConnected = connected;
      connected = false;
      client = undefined;
      current.end().catch(() => undefined);
      if (wasConnected) {
        options.logger.warn({ err: error, listener: options.name }, "LISTEN connection lost; reconnecting");
        options.onLost?.();
      }
      const delay = reconnectDelayMs(attempt++);
      timer = setTimeout(() => void connect(), delay);
      timer.unref();
    };
    current.on("error", onFailure);
    current.on("end", () => onFailure(new Error("connection ended")));
    current.on("notification", (message) => {
      if (message.channel === options.channel) options.onNotification(message.payload);
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${current.escapeIdentifier(options.channel)}`);
    } catch (error) {
      onFailure(error as Error);
      return;
    }
    if (lost) return;
    connected = true;
    if (attempt > 0) options.logger.info({ listener: options.name }, "LISTEN connection restored");
    attempt = 0;
    options.onConnect?.();
  };

  await connect();
  return {
    get connected() {
      return connected;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      connected = false;
      await client?.end().catch(() => undefined);
    },
  };
}
