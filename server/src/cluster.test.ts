import { describe, expect, it } from "vitest";
import { poolShares } from "./cluster.ts";

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
