/**
 * What the benchmarks that hold the service against its floors share: the floor servers (servers/floors.mjs, each in
 * its own process), the workspace they read (10,000 leads), and the medians of alternating rounds with their ratios.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import type { LoadResult } from "./load.ts";

export async function floorServer(kind: string, ...args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [new URL("./servers/floors.mjs", import.meta.url).pathname, kind, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** The first round's warm-up: the service's JIT needs about this long to reach its steady state. */
export const WARM_UP = { warmUpSeconds: 3 };

/** A workspace with 10,000 leads (ULID-shaped, time-ordered ids) and a key with `scopes`. */
export async function benchWorkspace(
  databaseUrl: string,
  scopes: string[] = ["leads:read", "leads:write"],
): Promise<{ workspaceId: string; key: string }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  try {
    const workspace = await createWorkspace(pool, { name: "Bench", ownerEmail: "bench@example.com" });
    const workspaceId = workspace.workspace_id;
    const { key } = await createApiKey(pool, { workspaceId, name: "bench", scopes });
    await pool.query(
      `INSERT INTO leads (id, workspace_id, email, name, status, tags)
       SELECT 'lead_01JD' || lpad(upper(to_hex(g)), 22, '0'), $1, 'lead' || g || '@example.com', 'Lead ' || g, 'new', '{bench}'
         FROM generate_series(1, 10000) AS g`,
      [workspaceId],
    );
    await pool.query("ANALYZE leads");
    return { workspaceId, key };
  } finally {
    await pool.end();
  }
}

/** Each figure's median over the rounds of one scenario. */
export function medianOf(results: LoadResult[]): LoadResult {
  const mid = <T>(values: T[], by: (value: T) => number) =>
    [...values].sort((a, b) => by(a) - by(b))[values.length >> 1];
  const first = results[0];
  if (!first) throw new Error("no runs");
  const figure = (pick: (result: LoadResult) => number | undefined) =>
    mid(
      results.map(pick).filter((value): value is number => value !== undefined),
      (value) => value,
    );
  const cpu = figure((result) => result.cpuMsPerRequest);
  const stores = figure((result) => result.storesCpuMsPerRequest);
  return {
    name: first.name,
    requests: figure((result) => result.requests) ?? 0,
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    perSecond: figure((result) => result.perSecond) ?? 0,
    p50: figure((result) => result.p50) ?? 0,
    p99: figure((result) => result.p99) ?? 0,
    ...(cpu !== undefined ? { cpuMsPerRequest: cpu } : {}),
    ...(stores !== undefined ? { storesCpuMsPerRequest: stores } : {}),
  };
}

/** The service's throughput as a share of its floor's, and its p99 as a multiple of the floor's. */
export function ratios(service: LoadResult, floor: LoadResult): { share: number; p99: number } {
  return { share: service.perSecond / floor.perSecond, p99: service.p99 / Math.max(1, floor.p99) };
}

export const ratio = (service: LoadResult, floor: LoadResult) => {
  const { share, p99 } = ratios(service, floor);
  return (
    `${service.name}: ${(share * 100).toFixed(1)} % of ${floor.name} (req/s), ` +
    `p99 ${p99.toFixed(2)} × (${service.p99} ms vs ${floor.p99} ms)`
  );
};
