/**
 * The environment of the service under a benchmark: production mode on a free port, the bench's database, the
 * machine's Redis when `REDIS_URL` is set, and a request budget no load reaches; `extra` adds or overrides.
 */
import { bareEnv } from "../helpers/process.ts";

export function benchServiceEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return bareEnv({
    NODE_ENV: "production",
    PORT: "0",
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL ?? "",
    API_RATE_LIMIT_PER_MINUTE: "1000000",
    ...extra,
  });
}
