/**
 * The forward of `listen`: its signer against the vectors the service's signer and the verifier share (a forward must
 * verify exactly as a delivery does), and its decisions on the receiver's answer.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { forwardRetryMs, forwardVerdict, newSecret, sign } from "./forward.js";

const vectors = JSON.parse(
  readFileSync(new URL("../../tests/vectors/webhook-signatures.json", import.meta.url), "utf8"),
) as Record<
  "reference" | "valid",
  { secret: string; id: string; timestamp: string; payload: string; signature: string }
>;

describe("sign", () => {
  it.each(["reference", "valid"] as const)("gives the %s vector's signature", (name) => {
    const vector = vectors[name];
    expect(sign(vector.secret, vector.id, Number(vector.timestamp), vector.payload)).toBe(vector.signature);
  });
});

describe("newSecret", () => {
  it("makes a whsec_ secret of 32 random bytes, a new one each time", () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });
});

describe("forwardVerdict", () => {
  it.each([
    { status: 200, skipRefused: false, want: "accepted" },
    { status: 204, skipRefused: true, want: "accepted" },
    { status: 302, skipRefused: false, want: "retry" },
    { status: 302, skipRefused: true, want: "skip" },
    { status: 400, skipRefused: false, want: "retry" },
    { status: 400, skipRefused: true, want: "skip" },
    { status: 410, skipRefused: true, want: "skip" },
    { status: 408, skipRefused: true, want: "retry" },
    { status: 429, skipRefused: true, want: "retry" },
    { status: 500, skipRefused: true, want: "retry" },
    { status: 503, skipRefused: true, want: "retry" },
    { status: undefined, skipRefused: true, want: "retry" },
  ])("answers $want to $status (skipRefused $skipRefused)", ({ status, skipRefused, want }) => {
    expect(forwardVerdict(status, skipRefused)).toBe(want);
  });
});

describe("forwardRetryMs", () => {
  it.each([
    { attempt: 0, retryAfter: null, want: 500 },
    { attempt: 1, retryAfter: null, want: 1_000 },
    { attempt: 5, retryAfter: null, want: 16_000 },
    { attempt: 6, retryAfter: null, want: 30_000 },
    { attempt: 40, retryAfter: null, want: 30_000 },
    { attempt: 0, retryAfter: "5", want: 5_000 },
    { attempt: 0, retryAfter: "3600", want: 30_000 },
    { attempt: 2, retryAfter: "soon", want: 2_000 },
  ])("waits $want ms after try $attempt with Retry-After $retryAfter", ({ attempt, retryAfter, want }) => {
    expect(forwardRetryMs(attempt, retryAfter)).toBe(want);
  });
});
