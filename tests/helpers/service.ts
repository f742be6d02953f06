/**
 * Starts the real service (API and worker) on port 0 against a fresh database, with Redis when `REDIS_URL` is
 * set: the same wiring as `npm start`, nothing mocked.
 */
import pino, { type Logger } from "pino";
import { afterAll, afterEach, beforeAll } from "vitest";
import { loadConfig } from "../../server/src/config.ts";
import { type RunningService, startService } from "../../server/src/service.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

export interface TestService {
  readonly url: string;
  /** The settings the service was started with. */
  readonly env: Record<string, string>;
  readonly service: RunningService;
  readonly database: TestDatabase;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export async function startTestService(
  env: Record<string, string> = {},
  /** The service's logger (a pino logger at LOG_LEVEL, on stdout, by default). */
  logger?: Logger,
): Promise<TestService> {
  const database = await createTestDatabase();
  const settings: Record<string, string> = {
    NODE_ENV: "test",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    // scrypt at N=2^12 in tests: the same code path, without 128 MiB and ~0.3 s per hash.
    PASSWORD_HASH_COST: "12",
    // Counters of one test file never meet another's, on a shared Redis.
    RATE_LIMIT_KEY_PREFIX: `rl-${database.name}`,
    DATABASE_URL: database.url,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...env,
  };
  const config = loadConfig(settings);
  const service = await startService(config, logger ?? pino({ level: config.logLevel }), "start");
  const url = service.url;
  if (!url) throw new Error("the service did not start its API");
  return {
    url,
    env: settings,
    service,
    database,
    fetch: (path, init) => fetch(new URL(path, url), init),
    stop: () => service.stop(),
  };
}

/**
 * Starts a service before the file's tests and stops it after them. Its database is dropped, unless a test
 * failed: then it is kept for inspection and its name printed.
 */
export function useTestService(env: Record<string, string> = {}): () => TestService {
  let current: TestService | undefined;
  let failed = false;
  beforeAll(async () => {
    current = await startTestService(env);
  });
  afterEach((context) => {
    if (context.task.result?.state === "fail") failed = true;
  });
  afterAll(async () => {
    if (!current) return;
    await current.stop();
    if (failed) console.error(`kept database ${current.database.name} for inspection`);
    else await current.database.drop();
  });
  return () => {
    if (!current) throw new Error("the test service is not started");
    return current;
  };
}
