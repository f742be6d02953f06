import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("gives the embedded defaults on an empty environment", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: "development",
      port: 3000,
      host: "127.0.0.1",
      publicBaseUrl: "http://127.0.0.1:3000",
      trustProxy: false,
      databaseUrl: undefined,
      redisUrl: undefined,
      smtpUrl: undefined,
      registrationMode: "open",
      webhookAllowPrivateNetworks: false,
      validateResponses: true,
      webhookPollIntervalMs: 1_000,
      webhookMaxDeliveriesPerSecond: 1_000,
      workerNice: 10,
    });
    expect(config.dataDir).toMatch(/\.data$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  const cases = [
    { given: { TRUST_PROXY: "true" }, want: { trustProxy: true } },
    { given: { TRUST_PROXY: "2" }, want: { trustProxy: 2 } },
    { given: { TRUST_PROXY: "loopback, 10.0.0.0/8" }, want: { trustProxy: "loopback, 10.0.0.0/8" } },
    { given: { REGISTRATION_MODE: "invite" }, want: { registrationMode: "invite" } },
    { given: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" }, want: { webhookAllowPrivateNetworks: true } },
    { given: { NODE_ENV: "production" }, want: { validateResponses: false } },
    { given: { DATABASE_URL: "postgres://u@db:5432/x" }, want: { databaseUrl: "postgres://u@db:5432/x" } },
    { given: { PORT: "8080", HOST: "0.0.0.0" }, want: { publicBaseUrl: "http://0.0.0.0:8080" } },
    { given: { WEBHOOK_POLL_INTERVAL_MS: "60000" }, want: { webhookPollIntervalMs: 60_000 } },
    { given: { WORKER_NICE: "0" }, want: { workerNice: 0 } },
    { given: { WEBHOOK_MAX_DELIVERIES_PER_SECOND: "5000" }, want: { webhookMaxDeliveriesPerSecond: 5_000 } },
  ];
  it.each(cases)("reads $given", ({ given, want }) => {
    expect(loadConfig(given)).toMatchObject(want);
  });

  it("refuses bad settings, naming every one at once", () => {
    const attempt = () =>
      loadConfig({
        PORT: "eighty",
        REGISTRATION_MODE: "closed",
        DATABASE_URL: "mysql://x",
        REDIS_URL: "nope",
        WEBHOOK_POLL_INTERVAL_MS: "0",
        WORKER_NICE: "-5",
        WEBHOOK_MAX_DELIVERIES_PER_SECOND: "0",
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(7);
    }
  });
});
