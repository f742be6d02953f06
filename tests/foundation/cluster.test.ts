/**
 * WEB_CONCURRENCY: several API processes on one port (node:cluster), the background jobs in a process of their own at a
 * lower CPU priority, a dead one replaced, a clean stop.
 */
import { getPriority } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { freePort } from "../helpers/free-port.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("WEB_CONCURRENCY=2", () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await database?.drop();
  });

  const listening = () =>
    (server?.logs ?? []).filter((entry) => entry.msg === "API listening") as { url: string; pid: number }[];
  const waitFor = async (count: number) => {
    for (let i = 0; i < 300 && listening().length < count; i++) await sleep(100);
    return listening();
  };

  it("serves one port from two processes, runs the worker in a third, replaces one that dies, and stops with exit code 0", async () => {
    database = await createTestDatabase();
    const metricsPort = await freePort();
    server = await runServer(
      [],
      bareEnv({
        PORT: "0",
        DATABASE_URL: database.url,
        WEB_CONCURRENCY: "2",
        DB_POOL_MAX: "8",
        METRICS_PORT: String(metricsPort),
      }),
    );
    const started = await waitFor(2);
    expect(new Set(started.map((entry) => entry.url)).size, "one address").toBe(1);
    expect(new Set(started.map((entry) => entry.pid)).size, "two processes").toBe(2);
    expect(server.logs.find((entry) => entry.msg === "cluster started")).toMatchObject({
      processes: 2,
      worker_process: true,
      // DB_POOL_MAX 8: the worker's share is 2 (a third, under its 4), the API processes share the other 6.
      pool_per_process: 3,
      worker_pool: 2,
    });
    const yieldLine = () =>
      server?.logs.find((entry) => entry.msg === "worker process yields the CPU to the API (WORKER_NICE)");
    await expect.poll(yieldLine, { timeout: 30_000 }).toMatchObject({ nice: 10 });
    const yielded = yieldLine();
    const workerPid = Number(yielded?.pid);
    // A process that exited at start would be replaced, and this pid gone: none may (its stderr says why).
    expect(
      server.logs.filter((entry) => entry.msg === "process exited; starting another"),
      server.stderr(),
    ).toEqual([]);
    expect(started.map((entry) => entry.pid)).not.toContain(workerPid);
    expect(getPriority(workerPid), "the worker process's nice value, as the OS sees it").toBe(10);
    for (const { pid } of started) expect(getPriority(pid)).toBe(getPriority());
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => fetch(`${server?.url}/health`).then((r) => r.status)),
    );
    expect(answers.every((status) => status === 200)).toBe(true);

    // One scrape of the primary gives every process's metrics, each labelled with its process: the requests the two
    // API processes served add up, whichever served each.
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const healthCounts = [...scraped.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)]
      .filter(([, labels]) => labels?.includes('route="/health"'))
      .map(([, labels, count]) => ({ process: /process="([^"]+)"/.exec(labels ?? "")?.[1], count: Number(count) }));
    expect(healthCounts.reduce((sum, entry) => sum + entry.count, 0)).toBe(40);
    expect(new Set(healthCounts.map((entry) => entry.process))).toEqual(new Set(["api-0", "api-1"]));
    expect(scraped).toMatch(/^process_resident_memory_bytes\{process="worker-2"\} \d+/m);

    process.kill(started[1]?.pid as number, "SIGKILL");
    const replaced = await waitFor(3);
    expect(replaced[2]?.pid).not.toBe(started[1]?.pid);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);

    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.logs.filter((entry) => Number(entry.level) >= 50)).toEqual([]);
  });
});
