/**
 * Prometheus metrics, one registry per app (tests start several apps in one process). A process alone serves its own
 * on METRICS_PORT; the processes of a cluster (cluster.ts) each label theirs with the process they come from, and the
 * cluster's primary serves them all from one scrape, so that counters stay monotonic and rates add up.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AggregatorRegistry, collectDefaultMetrics, Histogram, Registry } from "prom-client";

export interface Metrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<"method" | "route" | "status">;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Duration of HTTP requests by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, httpDuration };
}

/** Where `/metrics` reads its text from: one process's registry, or a cluster's, gathered by its primary. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * This process's metrics, as a process of a cluster: labelled `process="api-0"` (`worker-2`…) and handed to the
 * primary when it asks (prom-client's cluster messages), instead of served on a port of its own. Several processes on
 * one metrics port would each answer a scrape in turn, and a counter read from a different process each time is not a
 * counter.
 */
export function joinClusterMetrics(metrics: Metrics, processName: string): void {
  metrics.registry.setDefaultLabels({ process: processName });
  new AggregatorRegistry(); // its construction makes this process answer the primary's requests
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/** The metrics of every process of this cluster, for its primary to serve (their `process` labels keep them apart). */
export function clusterMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}

/**
 * `/metrics` on a listener of its own (METRICS_PORT, on METRICS_HOST: loopback by default), never on the API's:
 * metrics tell an outsider the routes, the traffic and the process's health, and the API port is public.
 */
export async function startMetricsServer(
  source: Metrics | MetricsSource,
  options: { port: number; host: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const { contentType, metrics: read } =
    "registry" in source
      ? { contentType: source.registry.contentType, metrics: () => source.registry.metrics() }
      : { contentType: source.contentType, metrics: () => source.metrics() };
  const server: Server = createServer((req, res) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    read().then(
      (text) => res.writeHead(200, { "Content-Type": contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
