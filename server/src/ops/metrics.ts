/**
 * Prometheus metrics, one registry per app (tests start several apps in one process).
 */
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";

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
