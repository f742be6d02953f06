/**
 * `listen`: follows a workspace's change stream (`GET /v1/events?after_sequence=…&wait=…`) and forwards each event to a
 * local URL signed as a webhook delivery is (Standard Webhooks headers and `X-Service-Signature`), so a receiver is
 * built and tested with no inbound network, tunnel or server setting. Its position is kept in a file after every
 * event: a restart resumes after the last event forwarded, none lost and none repeated.
 *
 * Node.js only (it signs with node:crypto and keeps its position with node:fs); not part of the browser-safe entry.
 */
import { createHmac, randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { createClient, type Event } from "./client.js";

/** How long one read of the stream waits for a new event, in seconds (the API allows at most 30). */
const WAIT_SECONDS = 25;
/** How long the forward target has to answer, as a webhook receiver has. */
const FORWARD_TIMEOUT_MS = 15_000;
/** Backoff of a forward that failed with a network error, 429 or 5xx: it is tried again, never skipped. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export interface ListenOptions {
  apiKey: string;
  baseUrl: string;
  /** Where to POST each event. */
  forwardTo: string;
  /** Only these kinds (all when empty or absent). */
  events?: readonly string[];
  /** The signing secret (`whsec_…`); one is made when absent (`secret` on the result says which). */
  secret?: string;
  /** The file that keeps the position; created when missing. */
  stateFile: string;
  /** Where to start when the file has no position: `now` (the next event, the default) or a sequence. */
  from?: "now" | number;
  /** One line per event and per problem (default: stdout). */
  log?: (line: string) => void;
  fetch?: typeof fetch;
}

export interface Listening {
  /** The secret deliveries are signed with. */
  readonly secret: string;
  /** Resolves when `stop()` was called and the event in hand is forwarded and recorded. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** A new signing secret, as the service makes them: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * The Standard Webhooks signature of one delivery: `v1,` and the base64 HMAC-SHA256, keyed by the secret's bytes, of
 * `{webhook-id}.{webhook-timestamp}.{body}`.
 *
 * @example
 * sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_01JD…", 1764000000, '{"id":"evt_01JD…"}'); // "v1,…"
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A delivery id of the contract's pattern (`dlv_` and a ULID) for one forward. */
function deliveryId(now = Date.now()): string {
  let time = "";
  for (let rest = now, i = 0; i < 10; i++, rest = Math.floor(rest / 32)) time = CROCKFORD[rest % 32] + time;
  const random = [...randomBytes(16)].map((byte) => CROCKFORD[byte & 31]).join("");
  return `dlv_${time}${random}`;
}

interface State {
  base_url: string;
  after_sequence: number;
}

async function readPosition(file: string, baseUrl: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  const state = JSON.parse(text) as State;
  if (state.base_url !== baseUrl) {
    throw new Error(`${file} keeps a position of ${state.base_url}, not of ${baseUrl}: give another --state file`);
  }
  return state.after_sequence;
}

/** Written to a temporary file and renamed over the old one, so that a kill never leaves half a position. */
async function writePosition(file: string, state: State): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state)}\n`);
  await rename(temporary, file);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", stop, { once: true });
  });

/**
 * Starts following and forwarding; resolves once the starting position is known.
 *
 * @example
 * const listening = await listen({ apiKey, baseUrl, forwardTo: "http://127.0.0.1:8080/webhooks", stateFile: ".listen.json" });
 * console.log("verify with", listening.secret);
 * process.on("SIGINT", () => void listening.stop());
 */
export async function listen(options: ListenOptions): Promise<Listening> {
  const log = options.log ?? ((line: string) => console.log(line));
  const send = options.fetch ?? fetch;
  const secret = options.secret ?? newSecret();
  const kinds = new Set(options.events ?? []);
  const client = createClient({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    timeoutMs: (WAIT_SECONDS + 15) * 1000,
    ...(options.fetch && { fetch: options.fetch }),
  });
  const stopping = new AbortController();

  let position = await readPosition(options.stateFile, options.baseUrl);
  if (position === undefined) {
    if (typeof options.from === "number") position = options.from;
    else {
      const { data, error } = await client.GET("/v1/events", { params: { query: { limit: 1 } } });
      if (error) throw new Error(`GET /v1/events: ${error.status} ${error.code}`);
      position = data.data[0]?.sequence ?? 0;
    }
    await writePosition(options.stateFile, { base_url: options.baseUrl, after_sequence: position });
  }

  /** Forwards one event until the target takes it (any answer but 429 and 5xx); false when stopped first. */
  const forward = async (event: Event): Promise<boolean> => {
    const body = JSON.stringify(event);
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = sign(secret, event.id, timestamp, body);
      const started = performance.now();
      let outcome: string;
      try {
        const response = await send(options.forwardTo, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "webhook-id": event.id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature,
            "x-service-signature": signature,
            "x-service-event": event.type,
            "x-service-delivery": deliveryId(),
          },
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        });
        await response.arrayBuffer().catch(() => undefined);
        const ms = Math.round(performance.now() - started);
        log(
          `${new Date().toISOString()}  ${event.sequence}  ${event.type}  ${event.id}  -> ${response.status} (${ms} ms)`,
        );
        if (response.status !== 429 && response.status < 500) return true;
        outcome = `answered ${response.status}`;
      } catch (error) {
        outcome = error instanceof Error ? error.message : String(error);
        log(`${new Date().toISOString()}  ${event.sequence}  ${event.type}  ${event.id}  -> failed: ${outcome}`);
      }
      await sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt), stopping.signal);
    }
    return false;
  };

  const run = async () => {
    while (!stopping.signal.aborted) {
      const { data, error } = await client.GET("/v1/events", {
        params: { query: { after_sequence: position as number, limit: 100, wait: WAIT_SECONDS } },
        signal: stopping.signal,
      });
      if (stopping.signal.aborted) return;
      if (error) {
        log(`${new Date().toISOString()}  reading the stream: ${error.status} ${error.code} ${error.detail ?? ""}`);
        // A position before the kept window has a gap no read can fill: stop rather than skip it silently.
        if (error.code === "EVENTS_EXPIRED" || error.status === 401 || error.status === 403) {
          throw new Error(`cannot go on: ${error.code}`);
        }
        await sleep(FIRST_RETRY_MS * 4, stopping.signal);
        continue;
      }
      for (const event of data.data) {
        if (kinds.size === 0 || kinds.has(event.type)) {
          if (!(await forward(event))) return;
        }
        position = event.sequence;
        await writePosition(options.stateFile, { base_url: options.baseUrl, after_sequence: position });
      }
    }
  };

  const done = run();
  return {
    secret,
    done,
    async stop() {
      stopping.abort();
      await done.catch(() => undefined);
    },
  };
}
