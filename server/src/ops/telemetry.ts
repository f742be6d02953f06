/**
 * OpenTelemetry, loaded by main.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is set (without it, nothing of it is imported
 * and the request path pays nothing). The SDK exports spans over OTLP/HTTP with the maintained instrumentations:
 * HTTP (the server span of each request, which continues the caller's `traceparent`), Express, pg and ioredis; pg-boss
 * 12 makes its own job spans through the global tracer. Ours (lib/trace-context.ts) cover what they do not see: the
 * contract check, and each delivery attempt as a client span whose parent is the request that caused its event, so
 * that a request, its SQL and every attempt of its deliveries are one trace.
 *
 * The standard OTEL_* variables configure the rest (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS, sampling, …).
 */
import { register } from "node:module";
import type { TraceContext, Tracer } from "../lib/trace-context.ts";

/** Starts the SDK; call before anything that loads Express, pg or ioredis. Returns its shutdown (flushes spans). */
export async function startTelemetry(): Promise<() => Promise<void>> {
  // The loader hook lets the instrumentations patch modules loaded through `import`, as the service's are.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);
  const api = await import("@opentelemetry/api");
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
  const { HttpInstrumentation } = await import("@opentelemetry/instrumentation-http");
  const { ExpressInstrumentation } = await import("@opentelemetry/instrumentation-express");
  const { PgInstrumentation } = await import("@opentelemetry/instrumentation-pg");
  const { IORedisInstrumentation } = await import("@opentelemetry/instrumentation-ioredis");
  const { useTracer, parseTraceparent } = await import("../lib/trace-context.ts");

  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? "service-platform",
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        // A delivery attempt is its own client span (below), whose `traceparent` the attempt sends and records as
        // sent: the HTTP instrumentation must not add a span of its own and replace that header.
        ignoreOutgoingRequestHook: (request) => {
          const headers = request.headers;
          return headers !== undefined && !Array.isArray(headers) && "x-service-delivery" in headers;
        },
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();

  const tracer = api.trace.getTracer("service-platform");
  const contextOf = (span: {
    spanContext(): { traceId: string; spanId: string; traceFlags: number; traceState?: { serialize(): string } };
  }): TraceContext => {
    const spanContext = span.spanContext();
    return {
      traceId: spanContext.traceId,
      spanId: spanContext.spanId,
      flags: spanContext.traceFlags.toString(16).padStart(2, "0"),
      state: spanContext.traceState?.serialize() || undefined,
    };
  };
  const installed: Tracer = {
    activeTrace() {
      const span = api.trace.getActiveSpan();
      return span?.isRecording() ? contextOf(span) : undefined;
    },
    startSpan(name) {
      const span = tracer.startSpan(name);
      return {
        end(failed) {
          if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    inRemoteChild(stored, name, attributes, attempt) {
      const parent = stored.traceparent ? parseTraceparent(stored.traceparent) : undefined;
      const parentContext = parent
        ? api.trace.setSpanContext(api.ROOT_CONTEXT, {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: Number.parseInt(parent.flags, 16),
            isRemote: true,
            ...(stored.tracestate ? { traceState: api.createTraceState(stored.tracestate) } : {}),
          })
        : api.ROOT_CONTEXT;
      return tracer.startActiveSpan(name, { kind: api.SpanKind.CLIENT, attributes }, parentContext, async (span) => {
        let ended = false;
        const end = (status?: number) => {
          if (ended) return;
          ended = true;
          if (status !== undefined) span.setAttribute("http.response.status_code", status);
          if (status === undefined || status >= 300) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
        };
        try {
          return await attempt(span.spanContext().spanId, end);
        } finally {
          end();
        }
      });
    },
  };
  useTracer(installed);
  return async () => {
    useTracer(undefined);
    await sdk.shutdown();
  };
}
