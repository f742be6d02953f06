/**
 * `listen`: follows a workspace's change stream (`GET /v1/events?after_sequence=…&wait=…`) and forwards each event to a
 * local URL signed as a webhook delivery is (forward.ts), so a receiver is built and tested with no inbound network,
 * tunnel or server setting.
 *
 * What it promises across restarts and failures:
 * - Its state file (listen-state.ts) keeps the position, the signing secret and the feed's last reset, written after
 *   every event: a restart resumes after the last event forwarded, signed with the same secret, so the receiver
 *   verifies what happened meanwhile instead of refusing it (`no_matching_signature`). None lost, none repeated.
 * - It never moves past an event the receiver did not accept (anything but a 2xx, or no answer): it tries it again
 *   with capped backoff, one line per try. `skipRefused` moves past an event the receiver refused, saying so.
 * - A reset of the test feed (`POST /v1/test-data/reset`, which restarts its sequence at 1) shows as a page whose
 *   `restarted_at` differs from the one kept, or as a 410 `EVENTS_RESET`: it says so and follows from sequence 0 with
 *   the same secret. A 410 `EVENTS_EXPIRED` (a position older than the 30 days kept) stops it: skipping the gap
 *   silently would hide lost events.
 *
 * Node.js only (it signs with node:crypto and keeps its state with node:fs); not part of the browser-safe entry.
 */
import { createClient, type Event } from "./client.js";
import { forwardOnce, forwardRetryMs, forwardVerdict, isRefusal, newSecret } from "./forward.js";
import { feedMode, feedWasReset, type ListenState, readState, writeState } from "./listen-state.js";

/** How long one read of the stream waits for a new event, in seconds (the API allows at most 30). */
const WAIT_SECONDS = 25;
/** The pause after a failed read of the stream (a restart of the service, a network error). */
const STREAM_RETRY_MS = 2_000;

export interface ListenOptions {
  apiKey: string;
  baseUrl: string;
  /** Where to POST each event. */
  forwardTo: string;
  /** Only these kinds (all when empty or absent). */
  events?: readonly string[];
  /**
   * The signing secret (`whsec_…`). Given, it wins over the one in the state file and is kept there; absent, the kept
   * one is used, else a new one is made and kept (`secret` and `secretSource` on the result say which).
   */
  secret?: string;
  /** The file that keeps the position, the secret and the feed's last reset; created, with its folders, when missing. */
  stateFile: string;
  /** Where to start when the file has no position: `now` (the next event, the default) or a sequence. */
  from?: "now" | number;
  /** Move past an event the receiver refused (3xx, or 4xx but 408 and 429) instead of trying it again. */
  skipRefused?: boolean;
  /** The first wait before an event is tried again, in milliseconds (default 500; it doubles up to 30 s). */
  firstRetryMs?: number;
  /** One line per event and per problem (default: stdout). */
  log?: (line: string) => void;
  fetch?: typeof fetch;
}

export interface Listening {
  /** The secret deliveries are signed with. */
  readonly secret: string;
  /** Where it came from: the `secret` option, the state file, or made at this start. */
  readonly secretSource: "given" | "kept" | "new";
  /** Resolves when `stop()` was called and the event in hand is forwarded and recorded. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** A page's `restarted_at`; a service older than test mode sends none (`undefined`), which is never a reset. */
const restartedAtOf = (page: { restarted_at?: string | null }): string | null | undefined => page.restarted_at;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", stop, { once: true });
  });

const now = () => new Date().toISOString();
const inWords = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`);

/**
 * Starts following and forwarding; resolves once the starting position and the secret are known and kept.
 *
 * @example
 * const listening = await listen({ apiKey, baseUrl, forwardTo: "http://127.0.0.1:8080/webhooks", stateFile: ".data/listen/test.json" });
 * console.log("verify with", listening.secret);
 * process.on("SIGINT", () => void listening.stop());
 */
export async function listen(options: ListenOptions): Promise<Listening> {
  const log = options.log ?? ((line: string) => console.log(line));
  const send = options.fetch ?? fetch;
  const kinds = new Set(options.events ?? []);
  const mode = feedMode(options.apiKey);
  const client = createClient({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    timeoutMs: (WAIT_SECONDS + 15) * 1000,
    ...(options.fetch && { fetch: options.fetch }),
  });
  const stopping = new AbortController();

  const kept = await readState(options.stateFile, options.baseUrl, mode);
  const secret = options.secret ?? kept?.secret ?? newSecret();
  const secretSource = options.secret ? "given" : kept?.secret ? "kept" : "new";
  let state: ListenState;
  if (kept?.after_sequence !== undefined) {
    state = { base_url: options.baseUrl, mode, after_sequence: kept.after_sequence, secret };
    if (kept.restarted_at !== undefined) state.restarted_at = kept.restarted_at;
  } else if (typeof options.from === "number") {
    state = { base_url: options.baseUrl, mode, after_sequence: options.from, secret };
  } else {
    const { data, error } = await client.GET("/v1/events", { params: { query: { limit: 1 } } });
    if (error) throw new Error(`GET /v1/events: ${error.status} ${error.code}`);
    state = { base_url: options.baseUrl, mode, after_sequence: data.data[0]?.sequence ?? 0, secret };
    const restartedAt = restartedAtOf(data);
    if (restartedAt !== undefined) state.restarted_at = restartedAt;
  }
  // Kept before the first event: a restart that comes before any event still signs with this secret.
  await writeState(options.stateFile, state);

  const save = () => writeState(options.stateFile, state);

  /** Forwards one event until the receiver takes it (or refuses it, with `skipRefused`); false when stopped first. */
  const forward = async (event: Event): Promise<boolean> => {
    const body = JSON.stringify(event);
    const what = `${event.sequence}  ${event.type}  ${event.id}`;
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      const outcome = await forwardOnce(send, options.forwardTo, secret, event, body);
      const answer =
        outcome.status === undefined ? `failed: ${outcome.failure}` : `${outcome.status} (${outcome.ms} ms)`;
      const verdict = forwardVerdict(outcome.status, options.skipRefused === true);
      if (verdict === "accepted") {
        log(`${now()}  ${what}  -> ${answer}`);
        return true;
      }
      if (verdict === "skip") {
        log(`${now()}  ${what}  -> ${answer}: refused, skipped (--skip-refused)`);
        return true;
      }
      const wait = forwardRetryMs(attempt, outcome.retryAfter, options.firstRetryMs);
      const skippable = isRefusal(outcome.status) ? "; --skip-refused would move past it" : "";
      log(`${now()}  ${what}  -> ${answer}: not accepted, next try in ${inWords(wait)}${skippable}`);
      await sleep(wait, stopping.signal);
    }
    return false;
  };

  /** After a reset of the test feed: from sequence 0 of the new feed, with the same secret. */
  const followAgain = async (why: string, restartedAt: string | null | undefined) => {
    log(`${now()}  The test feed was reset (${why}): following it again from sequence 0, with the same secret.`);
    state = { base_url: state.base_url, mode, after_sequence: 0, secret };
    if (restartedAt !== undefined) state.restarted_at = restartedAt;
    await save();
  };

  const run = async () => {
    while (!stopping.signal.aborted) {
      const { data, error } = await client.GET("/v1/events", {
        params: { query: { after_sequence: state.after_sequence, limit: 100, wait: WAIT_SECONDS } },
        signal: stopping.signal,
      });
      if (stopping.signal.aborted) return;
      if (error) {
        // The new feed's restarted_at is not in the problem: the next page says it, and is taken as it is.
        if (error.code === "EVENTS_RESET") {
          await followAgain("410 EVENTS_RESET", undefined);
          continue;
        }
        log(`${now()}  reading the stream: ${error.status} ${error.code} ${error.detail ?? ""}`);
        // A position before the kept window has a gap no read can fill: stop rather than skip it silently.
        if (error.code === "EVENTS_EXPIRED" || error.status === 401 || error.status === 403) {
          throw new Error(`cannot go on: ${error.code}`);
        }
        await sleep(STREAM_RETRY_MS, stopping.signal);
        continue;
      }
      const restartedAt = restartedAtOf(data);
      // This page's events are of the new feed but after the old position: the new feed's first ones would be missed.
      if (feedWasReset(state.restarted_at, restartedAt)) {
        await followAgain(`restarted_at ${restartedAt}`, restartedAt);
        continue;
      }
      if (state.restarted_at === undefined && restartedAt !== undefined) {
        state.restarted_at = restartedAt;
        await save();
      }
      for (const event of data.data) {
        if (kinds.size === 0 || kinds.has(event.type)) {
          if (!(await forward(event))) return;
        }
        state.after_sequence = event.sequence;
        await save();
      }
    }
  };

  const done = run();
  return {
    secret,
    secretSource,
    done,
    async stop() {
      stopping.abort();
      await done.catch(() => undefined);
    },
  };
}
