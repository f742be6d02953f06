import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

/**
 * pino JSON logs on stdout; secrets that may pass through a request are redacted. Writes are buffered and
 * asynchronous: a synchronous write per request line blocked the event loop on a slow stdout pipe (it was a quarter
 * of the CPU time of `GET /v1/leads` under load). `flushLogs` runs on shutdown so that no line is lost.
 */
export function createLogger(config: Pick<Config, "logLevel">): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: "service-platform" },
      redact: ["req.headers.authorization", "req.headers.cookie", "password", "*.password", "token", "*.token"],
    },
    pino.destination({ dest: 1, sync: false }),
  );
}

export function flushLogs(logger: Logger): void {
  logger.flush();
}
