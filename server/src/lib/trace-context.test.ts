import { describe, expect, it } from "vitest";
import { attemptTraceHeaders, parseTraceparent, parseTracestate, requestTrace, storedTrace } from "./trace-context.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";
const VALID = `00-${TRACE}-${SPAN}-01`;

describe("traceparent (W3C Trace Context §3.2)", () => {
  it("reads a valid header", () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE, spanId: SPAN, flags: "01" });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.flags).toBe("00");
  });

  it("reads a later version's header, and the fields it appends after a dash", () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01`)?.traceId).toBe(TRACE);
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-01-what-the-future-holds`)?.spanId).toBe(SPAN);
  });

  it.each([
    ["absent", undefined],
    ["empty", ""],
    ["version ff", `ff-${TRACE}-${SPAN}-01`],
    ["version 00 with more fields", `00-${TRACE}-${SPAN}-01-extra`],
    ["a later version whose extra is not after a dash", `01-${TRACE}-${SPAN}-01x`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN}-01`],
    ["an all-zero span id", `00-${TRACE}-${"0".repeat(16)}-01`],
    ["upper-case hex", `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ["a short trace id", `00-${TRACE.slice(1)}-${SPAN}-01`],
    ["a long span id", `00-${TRACE}-${SPAN}0-01`],
    ["one flag digit", `00-${TRACE}-${SPAN}-1`],
    ["non-hex", `00-${TRACE.replace("4", "g")}-${SPAN}-01`],
    ["two headers joined", `${VALID}, ${VALID}`],
    ["oversized", `01-${TRACE}-${SPAN}-01-${"a".repeat(600)}`],
  ])("ignores %s", (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe("tracestate (§3.3)", () => {
  it("keeps well-formed members, joined without spaces", () => {
    expect(parseTracestate("congo=t61rcWkgMzE, rojo=00f067aa0ba902b7")).toBe("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    expect(parseTracestate("tenant@vendor=abc")).toBe("tenant@vendor=abc");
  });

  it.each([
    ["more than 32 members", Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(",")],
    ["oversized", `k=${"v".repeat(600)}`],
    ["an upper-case key", "Congo=1"],
    ["a member without a value separator", "congo"],
    ["a value with a comma inside quotes", 'k="a,b"'],
  ])("drops %s", (_name, value) => {
    expect(parseTracestate(value)).toBeUndefined();
  });
});

describe("a request's trace", () => {
  it("continues the caller's trace with a span of its own, keeping the flags and state", () => {
    const trace = requestTrace({ traceparent: VALID, tracestate: "congo=1" });
    expect(trace).toMatchObject({ traceId: TRACE, flags: "01", state: "congo=1" });
    expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.spanId).not.toBe(SPAN);
  });

  it.each([
    ["no header", {}],
    ["a malformed header", { traceparent: "00-nonsense" }],
    ["an all-zero trace", { traceparent: `00-${"0".repeat(32)}-${SPAN}-01`, tracestate: "congo=1" }],
    ["two headers", { traceparent: [VALID, VALID] }],
  ])("starts a new trace, without state, for %s", (_name, headers) => {
    const trace = requestTrace(headers);
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.traceId).not.toBe(TRACE);
    expect(trace.state).toBeUndefined();
  });

  it("gives each attempt the stored trace id and a span id of its own", () => {
    const stored = storedTrace(requestTrace({ traceparent: VALID, tracestate: "congo=1" }));
    const first = attemptTraceHeaders(stored);
    const second = attemptTraceHeaders(stored);
    expect(first.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(first.traceparent).not.toBe(second.traceparent);
    expect(first.tracestate).toBe("congo=1");
    expect(attemptTraceHeaders({ traceparent: null, tracestate: null }).traceparent).toMatch(
      /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/,
    );
  });
});
