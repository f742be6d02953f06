/**
 * The only module that reads the environment. `loadConfig()` turns it into a frozen, typed object with every
 * default in one place, and refuses to start on a setting it cannot parse (listing every bad one at once).
 */
import { resolve } from "node:path";
import { LIMITER_NAMES, type LimiterName, type LimitOverrides } from "./lib/limiter-names.ts";

type RegistrationMode = "open" | "invite";
type NodeEnv = "development" | "production" | "test";

export interface Config {
  readonly nodeEnv: NodeEnv;
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: string;
  /**
   * Express's `trust proxy` (TRUST_PROXY): which proxies' `X-Forwarded-For` is believed for the client's address
   * (`req.ip`, the key of the per-IP account limits). False (default): the connection's own address. True: the
   * header's left-most address, which any client can write, so only behind a proxy that overwrites the header. A
   * hop count, or comma-separated addresses, subnets and proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`).
   */
  readonly trustProxy: boolean | number | string;
  /** Unset: embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Unset (and no sentinels): rate-limit counters in PostgreSQL. With sentinels, only its credentials and database. */
  readonly redisUrl: string | undefined;
  /** Redis through Sentinel (REDIS_SENTINELS, `host:port,…`): the sentinels that name the primary. */
  readonly redisSentinels: readonly { host: string; port: number }[] | undefined;
  /** The primary's name at the sentinels (REDIS_SENTINEL_NAME). */
  readonly redisSentinelName: string;
  /** Unset: e-mails land in the `outbox` table and the log. */
  readonly smtpUrl: string | undefined;
  readonly registrationMode: RegistrationMode;
  readonly webhookAllowPrivateNetworks: boolean;
  readonly logLevel: string;
  /** Largest accepted request body. */
  readonly bodyLimitBytes: number;
  /** Validate responses against the contract too (always outside production). */
  readonly validateResponses: boolean;
  /** How long a SIGTERM waits for in-flight requests before closing connections. */
  readonly shutdownTimeoutMs: number;
  /**
   * After a SIGTERM, how long the API keeps serving while `/ready` answers 503, so that a load balancer's health
   * checks take it out of rotation before it stops accepting connections (SHUTDOWN_DRAIN_MS).
   */
  readonly shutdownDrainMs: number;
  /** Rate-limit changes: request budgets, and short windows injected by tests. */
  readonly rateLimits: LimitOverrides;
  /** Prefix of rate-limit counter keys in the store. */
  readonly rateLimitKeyPrefix: string;
  /** Operator lists on top of the disposable-domain blocklist (allow wins). */
  readonly disposableEmailAllow: readonly string[];
  readonly disposableEmailDeny: readonly string[];
  readonly mailFrom: string;
  /** log2 of scrypt's N for password hashes (17: OWASP's minimum). */
  readonly passwordHashCost: number;
  /** How long a write waits for another in flight with the same Idempotency-Key before answering 409. */
  readonly idempotencyWaitMs: number;
  /** Delays between webhook delivery attempts, in seconds (tests compress it). */
  readonly webhookRetrySchedule: readonly number[] | undefined;
  readonly webhookTimeoutMs: number;
  /** How often the delivery worker looks for due deliveries besides its wake-ups (WEBHOOK_POLL_INTERVAL_MS). */
  readonly webhookPollIntervalMs: number;
  /** The most delivery attempts a worker process starts a second (WEBHOOK_MAX_DELIVERIES_PER_SECOND). */
  readonly webhookMaxDeliveriesPerSecond: number;
  /** The nice value a process of the `worker` role takes (WORKER_NICE): background work yields the CPU to the API. */
  readonly workerNice: number;
  /** Connecting to PostgreSQL, and waiting for a pooled connection (DB_CONNECT_TIMEOUT_MS). */
  readonly dbConnectTimeoutMs: number;
  /** PostgreSQL's `statement_timeout`; the client gives up a little later on a server that does not answer at all. */
  readonly dbStatementTimeoutMs: number;
  /** Connections per pool (DB_POOL_MAX). */
  readonly dbPoolMax: number;
  /** How long one Redis command of a request budget may take before its PostgreSQL insurance counts instead. */
  readonly redisCommandTimeoutMs: number;
  /** Port of the Prometheus `/metrics` listener; unset: no metrics listener. Never served on the API port. */
  readonly metricsPort: number | undefined;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: where spans go over OTLP/HTTP (ops/telemetry.ts); unset, OpenTelemetry is not loaded.
   * The SDK reads it, and the other OTEL_* variables, itself.
   */
  readonly otelEndpoint: string | undefined;
  readonly metricsHost: string;
  /** API processes on one port (node:cluster): WEB_CONCURRENCY; unset, cluster.ts's `apiProcesses` decides. */
  readonly webConcurrency: number | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Readonly<Config> {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["true", "1", "yes"].includes(raw)) return true;
    if (["false", "0", "no"].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(", ")} (got "${raw}")`);
    return fallback;
  };
  const hostPorts = (name: string): { host: string; port: number }[] | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    const found = raw.split(",").map((entry) => {
      const match = /^\s*(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match?.[1] || port < 1 || port > 65_535) return undefined;
      return { host: match[1].replace(/^\[|\]$/g, ""), port };
    });
    if (found.some((entry) => entry === undefined)) {
      problems.push(`${name} must be host:port pairs separated by commas (got "${raw}")`);
      return undefined;
    }
    return found as { host: string; port: number }[];
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error("protocol");
      return raw;
    } catch {
      problems.push(`${name} must be a ${protocols.join(" or ")} URL`);
      return undefined;
    }
  };

  const nodeEnv = oneOf<NodeEnv>("NODE_ENV", ["development", "production", "test"], "development");
  const port = integer("PORT", 3000, 0, 65535);
  const host = read("HOST") ?? "127.0.0.1";
  const trustProxyRaw = read("TRUST_PROXY");
  let trustProxy: boolean | number | string = false;
  if (trustProxyRaw !== undefined) {
    if (/^(true|false)$/i.test(trustProxyRaw)) trustProxy = trustProxyRaw.toLowerCase() === "true";
    else if (/^\d+$/.test(trustProxyRaw)) trustProxy = Number(trustProxyRaw);
    else trustProxy = trustProxyRaw;
  }

  const list = (name: string): string[] =>
    (read(name) ?? "")
      .split(",")
      .map((item) => item.trim().toLowerCase())
      .filter(Boolean);
  const perLimiter = (name: string): Partial<Record<LimiterName, number>> => {
    const out: Partial<Record<LimiterName, number>> = {};
    for (const item of list(name)) {
      const [limiter, value] = item.split("=");
      const seconds = Number(value);
      if (!LIMITER_NAMES.includes(limiter as LimiterName) || !Number.isInteger(seconds) || seconds < 1) {
        problems.push(`${name} takes name=whole-number pairs of known limiters (got "${item}")`);
        continue;
      }
      out[limiter as LimiterName] = seconds;
    }
    return out;
  };
  const schedule = (name: string): number[] | undefined => {
    const raw = read(name);
    if (raw === undefined) return undefined;
    const values = raw.split(",").map((item) => Number(item.trim()));
    if (values.some((value) => !Number.isFinite(value) || value < 0)) {
      problems.push(`${name} is a comma-separated list of seconds (got "${raw}")`);
      return undefined;
    }
    return values;
  };
  const apiBudget = read("API_RATE_LIMIT_PER_MINUTE");
  const sessionBudget = read("SESSION_RATE_LIMIT_PER_MINUTE");

  const config: Config = {
    nodeEnv,
    port,
    host,
    publicBaseUrl: url("PUBLIC_BASE_URL", ["http:", "https:"]) ?? `http://${host}:${port}`,
    trustProxy,
    databaseUrl: url("DATABASE_URL", ["postgres:", "postgresql:"]),
    dataDir: resolve(read("DATA_DIR") ?? ".data"),
    redisUrl: url("REDIS_URL", ["redis:", "rediss:"]),
    redisSentinels: hostPorts("REDIS_SENTINELS"),
    redisSentinelName: read("REDIS_SENTINEL_NAME") ?? "mymaster",
    smtpUrl: url("SMTP_URL", ["smtp:", "smtps:"]),
    registrationMode: oneOf<RegistrationMode>("REGISTRATION_MODE", ["open", "invite"], "open"),
    webhookAllowPrivateNetworks: boolean("WEBHOOK_ALLOW_PRIVATE_NETWORKS", false),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, nodeEnv === "test" ? "silent" : "info"),
    bodyLimitBytes: integer("BODY_LIMIT_BYTES", 1024 * 1024, 1024, 50 * 1024 * 1024),
    validateResponses: nodeEnv !== "production",
    shutdownTimeoutMs: integer("SHUTDOWN_TIMEOUT_MS", 10_000, 0, 120_000),
    // In production, three health checks of a balancer that checks every second (docs/deployment.md); elsewhere none,
    // so that Ctrl-C and the tests stop at once.
    shutdownDrainMs: integer("SHUTDOWN_DRAIN_MS", nodeEnv === "production" ? 3_000 : 0, 0, 120_000),
    rateLimits: {
      windows: perLimiter("RATE_LIMIT_WINDOWS"),
      points: {
        ...(apiBudget ? { "api-key": integer("API_RATE_LIMIT_PER_MINUTE", 600, 1, 1_000_000) } : {}),
        ...(sessionBudget ? { session: integer("SESSION_RATE_LIMIT_PER_MINUTE", 300, 1, 1_000_000) } : {}),
      },
    },
    rateLimitKeyPrefix: read("RATE_LIMIT_KEY_PREFIX") ?? "rl",
    disposableEmailAllow: list("DISPOSABLE_EMAIL_ALLOW"),
    disposableEmailDeny: list("DISPOSABLE_EMAIL_DENY"),
    mailFrom: read("MAIL_FROM") ?? "Service Platform <no-reply@localhost>",
    passwordHashCost: integer("PASSWORD_HASH_COST", 17, 10, 20),
    idempotencyWaitMs: integer("IDEMPOTENCY_WAIT_MS", 10_000, 1, 60_000),
    webhookRetrySchedule: schedule("WEBHOOK_RETRY_SCHEDULE"),
    webhookTimeoutMs: integer("WEBHOOK_TIMEOUT_MS", 15_000, 100, 60_000),
    webhookPollIntervalMs: integer("WEBHOOK_POLL_INTERVAL_MS", 1_000, 500, 3_600_000),
    webhookMaxDeliveriesPerSecond: integer("WEBHOOK_MAX_DELIVERIES_PER_SECOND", 1_000, 1, 1_000_000),
    workerNice: integer("WORKER_NICE", 10, 0, 19),
    dbConnectTimeoutMs: integer("DB_CONNECT_TIMEOUT_MS", 5_000, 100, 120_000),
    dbStatementTimeoutMs: integer("DB_STATEMENT_TIMEOUT_MS", 5_000, 100, 600_000),
    dbPoolMax: integer("DB_POOL_MAX", 20, 2, 500),
    redisCommandTimeoutMs: integer("REDIS_COMMAND_TIMEOUT_MS", 500, 10, 60_000),
    otelEndpoint: read("OTEL_EXPORTER_OTLP_ENDPOINT"),
    metricsPort: read("METRICS_PORT") === undefined ? undefined : integer("METRICS_PORT", 0, 0, 65535),
    metricsHost: read("METRICS_HOST") ?? "127.0.0.1",
    webConcurrency: read("WEB_CONCURRENCY") === undefined ? undefined : integer("WEB_CONCURRENCY", 1, 1, 64),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
