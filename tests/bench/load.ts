/**
 * A small closed-loop load generator: `connections` keep-alive clients each send requests back to back for
 * `durationMs`; reports requests per second and latency percentiles. Loopback only, bounded in time.
 */
import { Agent, request } from "node:http";

export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

function once(agent: Agent, base: URL, make: () => LoadRequest): Promise<number> {
  const spec = make();
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      { agent, host: base.hostname, port: base.port, method: spec.method, path: spec.path, headers: spec.headers },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode && res.statusCode < 500
            ? resolve(performance.now() - started)
            : reject(new Error(String(res.statusCode))),
        );
      },
    );
    req.on("error", reject);
    req.end(spec.body);
  });
}

export async function load(
  name: string,
  url: string,
  make: () => LoadRequest,
  options = { connections: 32, durationMs: 3000 },
): Promise<LoadResult> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + options.durationMs;
  // Warm-up: a few requests per connection, not measured.
  await Promise.all(Array.from({ length: options.connections }, () => once(agent, base, make).catch(() => 0)));
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < deadline) {
        try {
          latencies.push(await once(agent, base, make));
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    name,
    requests: latencies.length,
    errors,
    perSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

export function report(results: LoadResult[], baseline: LoadResult): void {
  for (const result of results) {
    console.log(
      `${result.name.padEnd(34)} ${result.perSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2).padStart(6)} ms  p99 ${result.p99.toFixed(2).padStart(7)} ms  errors ${result.errors}  ` +
        `${((100 * result.perSecond) / baseline.perSecond).toFixed(1).padStart(5)} % of ${baseline.name}`,
    );
  }
}
