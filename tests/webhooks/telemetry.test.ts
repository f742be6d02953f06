/**
 * OpenTelemetry from outside: the service runs as its own process with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real
 * OTLP/HTTP endpoint started here, and a request that carries a `traceparent` must come back as one trace: the
 * request's server span under the caller's span, its SQL, the contract check, and each delivery attempt, whose span id
 * is the one the receiver saw in its `traceparent`.
 */

import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok } from "../helpers/sdk.ts";
import { startWebhookService, type WebhookService } from "../helpers/webhook-service.ts";

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** OTLP's span kinds (SPAN_KIND_SERVER, SPAN_KIND_CLIENT). */
const SERVER = 2;
const CLIENT = 3;
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

let collector: Server;
const spans: Span[] = [];
let service: WebhookService;

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"]?.startsWith("application/json")) {
        const message = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: Span[] }[] }[];
        };
        for (const resource of message.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  collector.listen(0, "127.0.0.1");
  await once(collector, "listening");
  const { port } = collector.address() as AddressInfo;
  service = await startWebhookService({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    WEBHOOK_RETRY_SCHEDULE: "0.2",
  });
});

afterAll(async () => {
  await service?.stop();
  collector?.close();
});

async function spansOf(traceId: string, done: (found: Span[]) => boolean): Promise<Span[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = spans.filter((span) => span.traceId === traceId);
    if (done(found) || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("OpenTelemetry with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports one trace: the request under the caller's span, its SQL and check, and each delivery attempt", async () => {
    const client = await service.newClient();
    const path = "/otel";
    service.receiver.respond = (request, count) =>
      request.path === path ? { status: count === 1 ? 500 : 204 } : { status: 204 };
    ok(
      await client.POST("/v1/webhooks", { body: { url: `${service.receiver.url}${path}`, events: ["lead.captured"] } }),
    );
    const created = await client.POST("/v1/leads", {
      body: { name: "observed" },
      headers: { traceparent: `00-${TRACE}-${CALLER_SPAN}-01` },
    });
    expect(created.response.status).toBe(201);
    const received = await service.receiver.waitFor(2, path, 20_000);
    const sentSpans = received.map((item) =>
      /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(item.headers.traceparent ?? ""),
    );
    for (const match of sentSpans) expect(match?.[1]).toBe(TRACE);

    const trace = await spansOf(
      TRACE,
      (found) => found.filter((span) => span.kind === CLIENT && span.name.startsWith("webhook attempt")).length >= 2,
    );
    const server = trace.find((span) => span.kind === SERVER && span.parentSpanId === CALLER_SPAN);
    expect(server, "the request's server span, child of the caller's").toBeDefined();
    const ids = new Set(trace.map((span) => span.spanId));
    // Every span of the trace hangs from the caller's span or from another span of the trace: one tree.
    for (const span of trace) expect(span.parentSpanId === CALLER_SPAN || ids.has(span.parentSpanId ?? "")).toBe(true);
    expect(trace.some((span) => span.name === "openapi.validate")).toBe(true);
    const sql = trace.filter(
      (span) =>
        /^(pg\.query|INSERT|SELECT|BEGIN|COMMIT)/.test(span.name) ||
        span.attributes?.some((a) => a.key === "db.system" || a.key === "db.system.name"),
    );
    expect(sql.length).toBeGreaterThan(0);
    const attempts = trace.filter((span) => span.kind === CLIENT && span.name === "webhook attempt lead.captured");
    expect(attempts).toHaveLength(2);
    // Each attempt's span is the span id the receiver got, distinct per attempt.
    expect(new Set(attempts.map((span) => span.spanId))).toEqual(new Set(sentSpans.map((match) => match?.[2])));
  });
});
