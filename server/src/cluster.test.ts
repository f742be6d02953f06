import { describe, expect, it } from "vitest";
import { apiProcesses, poolShares, runsAsCluster } from "./cluster.ts";

describe("poolShares", () => {
  it("gives the worker at most 4 connections and the API processes the rest", () => {
    expect(poolShares(20, 2, true)).toEqual({ api: 8, worker: 4 });
    expect(poolShares(100, 4, true)).toEqual({ api: 24, worker: 4 });
  });

  it("gives the worker no more than an equal share of a small budget", () => {
    expect(poolShares(8, 2, true)).toEqual({ api: 3, worker: 2 });
    expect(poolShares(9, 2, true)).toEqual({ api: 3, worker: 3 });
  });

  it("shares the whole budget among the API processes when there is no worker", () => {
    expect(poolShares(20, 2, false)).toEqual({ api: 10, worker: 0 });
  });

  it("keeps at least 2 each (a transaction and a query beside it), even past the budget", () => {
    expect(poolShares(2, 8, true)).toEqual({ api: 2, worker: 2 });
  });
});

describe("apiProcesses", () => {
  const production = { nodeEnv: "production" as const, webConcurrency: undefined };
  it("runs one per core on an API host, one per core but one beside the worker (bench:processes)", () => {
    expect(apiProcesses(production, "api", 4)).toBe(4);
    expect(apiProcesses(production, "start", 4)).toBe(3);
    expect(apiProcesses(production, "start", 2)).toBe(1);
    expect(apiProcesses(production, "start", 1)).toBe(1);
  });

  it("runs one outside production, and what WEB_CONCURRENCY says when set", () => {
    expect(apiProcesses({ nodeEnv: "development", webConcurrency: undefined }, "start", 8)).toBe(1);
    expect(apiProcesses({ ...production, webConcurrency: 2 }, "start", 2)).toBe(2);
  });
});

describe("runsAsCluster", () => {
  it("keeps the worker out of the API's process in production, even beside one API process", () => {
    expect(runsAsCluster({ nodeEnv: "production", webConcurrency: 1 }, "start")).toBe(true);
    expect(runsAsCluster({ nodeEnv: "production", webConcurrency: 1 }, "api")).toBe(false);
    expect(runsAsCluster({ nodeEnv: "production", webConcurrency: 2 }, "api")).toBe(true);
    expect(runsAsCluster({ nodeEnv: "development", webConcurrency: undefined }, "start")).toBe(false);
    expect(runsAsCluster({ nodeEnv: "production", webConcurrency: 4 }, "worker")).toBe(false);
  });
});
