/**
 * Load generation for the benchmarks: autocannon (a maintained HTTP benchmarking tool), closed loop, keep-alive
 * connections, loopback only, bounded in time. `make` builds each request, so that writes carry a fresh
 * Idempotency-Key and body every time.
 */
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";

export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time of the measured server process per request, in ms (when its pid was given). */
  cpuMsPerRequest?: number;
  /** CPU time of every PostgreSQL and Redis process of the machine per request, in ms (when a pid was given). */
  storesCpuMsPerRequest?: number;
}

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  connections?: number;
  durationSeconds?: number;
  /** Measure this process's CPU time (user + system, from /proc) over the run. */
  pid?: number;
  /**
   * Requests per second over all connections, instead of a closed loop that saturates the server. autocannon spends
   * each connection's share of a second back to back when the second starts, then waits: a light load in bursts of
   * `connections` requests at once, whose latency is the service time under that concurrency.
   */
  rate?: number;
  /** End the measured run when this settles instead of after `durationSeconds` (a load that lasts while work runs). */
  until?: Promise<unknown>;
  /** The unmeasured warm-up (default 1 s; 0 skips it). */
  warmUpSeconds?: number;
}

/** A process's command and CPU time so far, in ms (Linux /proc/PID/stat: fields 2, 14 and 15, in 10 ms ticks). */
function readStat(pid: number): { command: string; cpu: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    command: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
    cpu: (Number(fields[11]) + Number(fields[12])) * 10,
  };
}

/** CPU time of a process so far, in ms. */
export function cpuMs(pid: number): number {
  return readStat(pid).cpu;
}

/** The CPU time processes spent between two readings by pid; a process that started meanwhile counts whole. */
export function cpuSpent(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

const STORE_COMMANDS = new Set(["postgres", "redis-server"]);

/** CPU time so far of each PostgreSQL and Redis process of the machine (a backend, a server), by pid. */
export function storesCpu(): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readStat(Number(entry));
      if (STORE_COMMANDS.has(stat.command)) found.set(Number(entry), stat.cpu);
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

export async function load(
  name: string,
  url: string,
  make: () => LoadRequest,
  options: LoadOptions = {},
): Promise<LoadResult> {
  const first = make();
  const run = (duration: number, until?: Promise<unknown>) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url,
          connections: options.connections ?? 32,
          duration,
          method: first.method,
          ...(options.rate ? { overallRate: options.rate } : {}),
          requests: [
            {
              setupRequest: (request) => {
                const next = make();
                return {
                  ...request,
                  method: next.method,
                  path: next.path,
                  headers: next.headers ?? {},
                  body: next.body,
                };
              },
            },
          ],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      const stop = () => instance.stop();
      until?.then(stop, stop);
    });
  const warmUp = options.warmUpSeconds ?? 1;
  if (warmUp > 0) await run(warmUp); // warm-up: JIT, pools and caches, not measured
  const cpuBefore = options.pid ? cpuMs(options.pid) : 0;
  const storesBefore = options.pid ? storesCpu() : undefined;
  // An open-ended run lasts until `until` settles (an hour at most).
  const result = await (options.until ? run(3_600, options.until) : run(options.durationSeconds ?? 5));
  const cpu = options.pid ? cpuMs(options.pid) - cpuBefore : undefined;
  const stores = storesBefore ? cpuSpent(storesBefore, storesCpu()) : undefined;
  const requests = result.requests.total;
  return {
    name,
    requests,
    errors: result.errors + result.timeouts + result.non2xx,
    perSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ...(cpu !== undefined && requests > 0 ? { cpuMsPerRequest: Math.round((cpu / requests) * 1000) / 1000 } : {}),
    ...(stores !== undefined && requests > 0
      ? { storesCpuMsPerRequest: Math.round((stores / requests) * 1000) / 1000 }
      : {}),
  };
}

/** Prints one row per result, with its ratio to `baseline` (req/s and p99) when given. */
export function report(results: LoadResult[], baseline?: LoadResult): void {
  const rows = results.map((result) => ({
    scenario: result.name,
    "req/s": result.perSecond,
    "p50 ms": result.p50,
    "p99 ms": result.p99,
    errors: result.errors,
    ...(baseline ? { [`vs ${baseline.name}`]: `${((result.perSecond / baseline.perSecond) * 100).toFixed(1)} %` } : {}),
    ...(result.cpuMsPerRequest !== undefined ? { "CPU ms/req": result.cpuMsPerRequest } : {}),
    ...(result.storesCpuMsPerRequest !== undefined ? { "PG+Redis CPU ms/req": result.storesCpuMsPerRequest } : {}),
  }));
  console.table(rows);
}
