import { describe, expect, it } from "vitest";
import { groupCommit } from "./group-commit.ts";

/** A write that records its batches and settles when the test says so. */
function controlledWrite(fail: (items: number[]) => Error | undefined = () => undefined) {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      pending.push(() => {
        const error = fail(items);
        if (error) reject(error);
        else resolve();
      });
    });
  const settleNext = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { write, batches, settleNext };
}

const transient = (error: unknown) => error instanceof Error && error.message === "database down";

describe("groupCommit", () => {
  it("writes an item that comes alone at once, alone", async () => {
    const { write, batches, settleNext } = controlledWrite();
    const commit = groupCommit(write, { maxItems: 10, isTransient: transient });
    const done = commit(1);
    expect(batches).toEqual([[1]]);
    await settleNext();
    await expect(done).resolves.toBeUndefined();
  });

  it("writes the items that arrive during a write together in the next, each caller waiting for its own", async () => {
    const { write, batches, settleNext } = controlledWrite();
    const commit = groupCommit(write, { maxItems: 10, isTransient: transient });
    const settled: number[] = [];
    const calls = [1, 2, 3, 4].map((item) => commit(item).then(() => settled.push(item)));
    expect(batches).toEqual([[1]]);
    await settleNext();
    expect(settled).toEqual([1]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    await settleNext();
    await Promise.all(calls);
    expect(settled).toEqual([1, 2, 3, 4]);
  });

  it("puts at most maxItems in one write", async () => {
    const { write, batches, settleNext } = controlledWrite();
    const commit = groupCommit(write, { maxItems: 2, isTransient: transient });
    const calls = [1, 2, 3, 4, 5].map((item) => commit(item));
    for (let i = 0; i < 3; i++) await settleNext();
    await Promise.all(calls);
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("writes each item of a failed batch again on its own: only the bad item's caller fails", async () => {
    const { write, batches, settleNext } = controlledWrite((items) =>
      items.includes(3) ? new Error("violates a constraint") : undefined,
    );
    const commit = groupCommit(write, { maxItems: 10, isTransient: transient });
    const calls = [1, 2, 3, 4].map((item) =>
      commit(item).then(
        () => "written",
        (error: Error) => error.message,
      ),
    );
    for (let i = 0; i < 5; i++) await settleNext();
    expect(await Promise.all(calls)).toEqual(["written", "written", "violates a constraint", "written"]);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it("fails a whole batch without retrying when the database is down", async () => {
    const { write, batches, settleNext } = controlledWrite(() => new Error("database down"));
    const commit = groupCommit(write, { maxItems: 10, isTransient: transient });
    const calls = [1, 2, 3].map((item) => commit(item).catch((error: Error) => error.message));
    await settleNext();
    await settleNext();
    expect(await Promise.all(calls)).toEqual(["database down", "database down", "database down"]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it("starts writing again after it went idle", async () => {
    const { write, batches, settleNext } = controlledWrite();
    const commit = groupCommit(write, { maxItems: 10, isTransient: transient });
    const first = commit(1);
    await settleNext();
    await first;
    const second = commit(2);
    await settleNext();
    await second;
    expect(batches).toEqual([[1], [2]]);
  });
});
