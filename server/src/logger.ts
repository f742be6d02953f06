import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

/** pino JSON logs; secrets that may pass through a request are redacted. */
export function createLogger(config: Pick<Config, "logLevel">): Logger {
  return pino({
    level: config.logLevel,
    base: { service: "service-platform" },
    redact: ["req.headers.authorization", "req.headers.cookie", "password", "*.password", "token", "*.token"],
  });
}
