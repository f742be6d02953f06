/**
 * pg-boss 12.38.0 as patches/pg-boss+12.38.0.patch carries it: a group's concurrency holds when fetches run at once.
 * On the published package each of several concurrent fetches counts the group's active jobs in its own snapshot,
 * sees none of the others' claims, and takes the group's one slot too: 20 fetches at once claim several jobs of a
 * group limited to 1.
 */
import { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const FETCHERS = 20;

let database: TestDatabase;
let boss: PgBoss;

beforeAll(async () => {
  database = await createTestDatabase();
  boss = new PgBoss({
    connectionString: database.url,
    schema: "jobs",
    max: FETCHERS + 2,
    supervise: false,
    schedule: false,
  });
  boss.on("error", () => undefined);
  await boss.start();
});

afterAll(async () => {
  await boss?.stop({ graceful: false });
  await database?.drop();
});

async function activeOf(queue: string): Promise<number> {
  return (await boss.findJobs(queue)).filter((job) => job.state === "active").length;
}

describe("pg-boss groupConcurrency under concurrent fetches", () => {
  it.each([
    { limit: 1, groupConcurrency: 1 },
    { limit: 3, groupConcurrency: { default: 10, tiers: { "3": 3 } } },
  ])("claims at most $limit of a group however many fetch at once", async ({ limit, groupConcurrency }) => {
    const queue = `limit-${limit}`;
    const group = "one";
    await boss.createQueue(queue);
    const tiered = typeof groupConcurrency === "number" ? {} : { tier: String(limit) };
    await boss.insert(
      queue,
      Array.from({ length: FETCHERS }, (_, i) => ({ data: { i }, group: { id: group, ...tiered } })),
    );
    for (let round = 0; round < 5; round++) {
      const fetched = await Promise.all(
        Array.from({ length: FETCHERS }, () => boss.fetch(queue, { batchSize: 2, groupConcurrency })),
      );
      expect(fetched.flat().length).toBeLessThanOrEqual(limit);
      expect(await activeOf(queue)).toBeLessThanOrEqual(limit);
      const claimed = fetched.flat();
      if (claimed.length > 0)
        await boss.complete(
          queue,
          claimed.map((job) => job.id),
        );
    }
    // Each round's claims were completed: the group went on, never past its limit.
    const done = (await boss.findJobs(queue)).filter((job) => job.state === "completed");
    expect(done.length).toBeGreaterThanOrEqual(5);
  });

  it("still fetches the jobs of other groups past a group at its limit", async () => {
    const queue = "two-groups";
    await boss.createQueue(queue);
    await boss.insert(queue, [
      ...Array.from({ length: 10 }, () => ({ data: {}, group: { id: "busy" } })),
      { data: {}, group: { id: "idle" } },
    ]);
    const first = await boss.fetch(queue, { batchSize: 1, groupConcurrency: 1 });
    expect(first.length).toBe(1);
    const rest = await boss.fetch(queue, { batchSize: 5, groupConcurrency: 1 });
    const groups = new Set(rest.map((job) => job.groupId));
    expect([...groups]).toEqual([first[0]?.groupId === "busy" ? "idle" : "busy"]);
  });
});
