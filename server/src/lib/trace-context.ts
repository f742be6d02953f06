/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` and `tracestate` a request brings, the
 * context the service stores with the events it causes, and the `traceparent` each delivery attempt sends, so that a
 * receiver's work joins the caller's trace. Without the OpenTelemetry SDK these are plain functions; with it
 * (ops/telemetry.ts, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set) the spans are the SDK's, through `useTracer`.
 */
import { randomBytes } from "node:crypto";

/** A position in a trace: the trace, the span of this hop, its flags and the vendors' state. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  /** Two hex digits; `01` when sampled. */
  flags: string;
  state: string | undefined;
}

/** The stored form of a context: what a `traceparent` and `tracestate` header say. */
export interface StoredTrace {
  traceparent: string | null;
  tracestate: string | null;
}

/** Longer headers are ignored (a new trace): the specification's limit for what a vendor must propagate. */
const MAX_HEADER_LENGTH = 512;
const MAX_STATE_MEMBERS = 32;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/** A `tracestate` list member: a key (simple, or tenant@system) and a value of printable characters but `,` and `=`. */
const STATE_MEMBER =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** The trace a `traceparent` names, or undefined when it is absent, malformed, all-zero or oversized. */
export function parseTraceparent(
  value: string | undefined,
): Pick<TraceContext, "traceId" | "spanId" | "flags"> | undefined {
  if (value === undefined || value.length > MAX_HEADER_LENGTH) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  // Version ff is invalid; version 00 has exactly four fields; a later version may append fields after a dash.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, flags };
}

/** A `tracestate` worth passing on: at most 32 well-formed members and 512 characters; otherwise none. */
export function parseTracestate(value: string | undefined): string | undefined {
  if (value === undefined || value.length > MAX_HEADER_LENGTH) return undefined;
  const members = value
    .split(",")
    .map((member) => member.trim())
    .filter((member) => member !== "");
  if (members.length === 0 || members.length > MAX_STATE_MEMBERS) return undefined;
  if (!members.every((member) => STATE_MEMBER.test(member))) return undefined;
  return members.join(",");
}

function randomHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString("hex");
    if (!ALL_ZERO.test(hex)) return hex;
  }
}

/**
 * What the OpenTelemetry SDK does for us when it runs (ops/telemetry.ts installs it); without it every hook below is a
 * plain call, and nothing of OpenTelemetry is loaded.
 */
export interface Tracer {
  /** The active span's context (a request's server span). */
  activeTrace(): TraceContext | undefined;
  /** Starts a span under the active one, not made active itself (a step such as the contract check). */
  startSpan(name: string): { end(failed?: boolean): void };
  /**
   * Runs `attempt` in a client span whose parent is the stored context (the request that caused the delivery), so the
   * attempt joins the caller's trace; `attempt` gets the span's id for the `traceparent` it sends.
   */
  inRemoteChild<T>(
    stored: StoredTrace,
    name: string,
    attributes: Record<string, string | number>,
    attempt: (spanId: string, end: (status?: number) => void) => Promise<T>,
  ): Promise<T>;
}

let tracer: Tracer | undefined;

/** Installs the OpenTelemetry side (ops/telemetry.ts), or removes it. */
export function useTracer(installed: Tracer | undefined): void {
  tracer = installed;
}

/** A span of a step, when the SDK runs; `undefined` (nothing to end) when it does not. */
export function startSpan(name: string): { end(failed?: boolean): void } | undefined {
  return tracer?.startSpan(name);
}

/** Runs one delivery attempt in its span (see `Tracer.inRemoteChild`); without the SDK, with a new span id. */
export function inAttemptSpan<T>(
  stored: StoredTrace,
  name: string,
  attributes: Record<string, string | number>,
  attempt: (spanId: string, end: (status?: number) => void) => Promise<T>,
): Promise<T> {
  return tracer ? tracer.inRemoteChild(stored, name, attributes, attempt) : attempt(randomHex(8), () => undefined);
}

/**
 * The context of a request with these headers: the active span's when the SDK runs; else the caller's trace with a
 * span of this request's own, or a new trace when the caller sent none that is valid.
 */
export function requestTrace(headers: Record<string, string | string[] | undefined>): TraceContext {
  const active = tracer?.activeTrace();
  if (active) return active;
  // Two `traceparent` headers are invalid (Node would join them); a list of `tracestate` headers is one list.
  const parent = typeof headers.traceparent === "string" ? parseTraceparent(headers.traceparent) : undefined;
  const spanId = randomHex(8);
  if (!parent) return { traceId: randomHex(16), spanId, flags: "01", state: undefined };
  const rawState = Array.isArray(headers.tracestate) ? headers.tracestate.join(",") : headers.tracestate;
  return { traceId: parent.traceId, spanId, flags: parent.flags, state: parseTracestate(rawState) };
}

/** The stored form of a context (what the events and deliveries it causes keep). */
export function storedTrace(trace: TraceContext | undefined): StoredTrace {
  if (!trace) return { traceparent: null, tracestate: null };
  return { traceparent: `00-${trace.traceId}-${trace.spanId}-${trace.flags}`, tracestate: trace.state ?? null };
}

/**
 * The trace headers of one attempt of a delivery caused in `stored`: the same trace id, a span id of the attempt's own
 * (`spanId`, or a new one); a new trace when nothing was stored.
 */
export function attemptTraceHeaders(stored: StoredTrace, spanId = randomHex(8)): Record<string, string> {
  const parent = stored.traceparent ? parseTraceparent(stored.traceparent) : undefined;
  const traceId = parent?.traceId ?? randomHex(16);
  const headers: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${parent?.flags ?? "01"}` };
  if (parent && stored.tracestate) headers.tracestate = stored.tracestate;
  return headers;
}
