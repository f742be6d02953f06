import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import * as web from "./index.js";
import * as node from "./node.js";
import { constantTimeEqual } from "./verify.js";

const vectors = JSON.parse(
  readFileSync(new URL("../../tests/vectors/webhook-signatures.json", import.meta.url), "utf8"),
);
const valid = vectors.valid as {
  secret: string;
  id: string;
  timestamp: string;
  nowMs: number;
  payload: string;
  signature: string;
};

type Message = typeof valid & { [key: string]: unknown };

function headersOf(message: Message, signatureHeader = "webhook-signature"): Record<string, string> {
  const headers: Record<string, string> = {};
  if (message.id !== null) headers["webhook-id"] = message.id;
  if (message.timestamp !== null) headers["webhook-timestamp"] = message.timestamp;
  if (message.signature !== null) headers[signatureHeader] = message.signature;
  return headers;
}

const entries = [
  ["WebCrypto (default export)", web.verifyWebhook],
  ["node:crypto (node export)", node.verifyWebhook],
] as const;

describe.each(entries)("verifyWebhook with %s", (_name, verifyWebhook) => {
  const verify = (message: Message, extra: object = {}) =>
    verifyWebhook({
      payload: message.payload,
      headers: headersOf(message),
      secret: message.secret,
      now: message.nowMs,
      ...extra,
    });

  it("accepts the valid message and returns the typed event", async () => {
    const event = await verify(valid);
    expect(event.type).toBe("lead.captured");
    if (event.type === "lead.captured") expect(event.data.object.email).toBe("ada@example.com");
  });

  it.each(vectors.broken as { name: string; change: Partial<Message>; reason: string }[])(
    "refuses $name ($reason)",
    async ({ change, reason }) => {
      const message = { ...valid, ...change } as Message;
      await expect(verify(message)).rejects.toMatchObject({ name: "WebhookVerificationError", reason });
    },
  );

  it("passes the Standard Webhooks reference vector", async () => {
    const { secret, id, timestamp, payload, signature } = vectors.reference;
    const event = await verifyWebhook({
      payload,
      headers: { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature },
      secret,
      now: Number(timestamp) * 1000,
    });
    expect(event).toEqual({ test: 2432232314 });
  });

  it("accepts X-Service-Signature, any header case, a Headers object and a byte body", async () => {
    const headers = new Headers(headersOf(valid, "X-Service-Signature"));
    const bytes = new TextEncoder().encode(valid.payload);
    await expect(
      verifyWebhook({ payload: bytes, headers, secret: valid.secret, now: valid.nowMs }),
    ).resolves.toMatchObject({ id: valid.id });
    const shouting = Object.fromEntries(Object.entries(headersOf(valid)).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(
      verifyWebhook({ payload: valid.payload, headers: shouting, secret: valid.secret, now: valid.nowMs }),
    ).resolves.toBeTruthy();
  });

  it("verifies a rotation's double signature with either secret", async () => {
    const message = { ...valid, signature: vectors.rotation.signature };
    await expect(verify(message)).resolves.toBeTruthy();
    await expect(verify({ ...message, secret: vectors.rotation.previousSecret })).resolves.toBeTruthy();
    await expect(
      verify(valid, { secret: undefined, secrets: [`whsec_${btoa("x".repeat(32))}`, valid.secret] }),
    ).resolves.toBeTruthy();
  });

  it("refuses a parsed object as payload, loudly", async () => {
    await expect(
      verifyWebhook({
        payload: JSON.parse(valid.payload),
        headers: headersOf(valid),
        secret: valid.secret,
        now: valid.nowMs,
      }),
    ).rejects.toMatchObject({ reason: "invalid_payload" });
  });

  it("refuses a call without a secret", async () => {
    await expect(
      verifyWebhook({ payload: valid.payload, headers: headersOf(valid), now: valid.nowMs }),
    ).rejects.toMatchObject({
      reason: "invalid_secret",
    });
  });
});

describe("interoperability and helpers", () => {
  it("verifies what the standardwebhooks library verifies (our vector)", () => {
    const wh = new Webhook(valid.secret);
    const realNow = Date.now;
    Date.now = () => valid.nowMs;
    try {
      expect(wh.verify(valid.payload, headersOf(valid))).toMatchObject({ id: valid.id });
    } finally {
      Date.now = realNow;
    }
  });

  it("verifies a fetch-style Request from its raw body", async () => {
    const request = new Request("https://receiver.example/hooks", {
      method: "POST",
      headers: headersOf(valid),
      body: valid.payload,
    });
    await expect(web.verifyRequest(request, { secret: valid.secret, now: valid.nowMs })).resolves.toMatchObject({
      id: valid.id,
    });
  });

  it("verifies an Express request read with express.raw, and explains a parsed body", async () => {
    const raw = { body: Buffer.from(valid.payload), headers: headersOf(valid) };
    await expect(node.verifyExpressRequest(raw, { secret: valid.secret, now: valid.nowMs })).resolves.toMatchObject({
      id: valid.id,
    });
    const parsed = { body: JSON.parse(valid.payload), headers: headersOf(valid) };
    await expect(node.verifyExpressRequest(parsed, { secret: valid.secret, now: valid.nowMs })).rejects.toThrow(
      /express.raw/,
    );
  });

  it("compares in constant time over equal lengths only", () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
  });
});

const builds = [
  ["WebCrypto (default export)", web],
  ["node:crypto (node export)", node],
] as const;

describe.each(builds)("the public API of the %s", (_name, build) => {
  it("exports the verifier, the signer, the error and the default tolerance: no internals", () => {
    expect(Object.keys(build).sort()).toEqual([
      "DEFAULT_TOLERANCE_IN_SECONDS",
      "WebhookVerificationError",
      "sign",
      "verifyExpressRequest",
      "verifyRequest",
      "verifyWebhook",
    ]);
  });

  it("signs what the standardwebhooks library verifies, and what both builds verify", async () => {
    const payload = valid.payload;
    const headers = await build.sign({ payload, secret: valid.secret, id: valid.id, timestamp: new Date(valid.nowMs) });
    expect(headers).toEqual({
      "webhook-id": valid.id,
      "webhook-timestamp": String(Math.floor(valid.nowMs / 1000)),
      "webhook-signature": expect.stringMatching(/^v1,[A-Za-z0-9+/]+={0,2}$/),
    });
    const realNow = Date.now;
    Date.now = () => valid.nowMs;
    try {
      expect(new Webhook(valid.secret).verify(payload, headers)).toMatchObject({ id: valid.id });
    } finally {
      Date.now = realNow;
    }
    for (const verifier of [web, node]) {
      await expect(
        verifier.verifyWebhook({ payload, headers, secret: valid.secret, now: valid.nowMs }),
      ).resolves.toMatchObject({ id: valid.id });
    }
  });

  it("signs with a fresh id and the current time by default, and bytes like text", async () => {
    const headers = await build.sign({ payload: new TextEncoder().encode(valid.payload), secret: valid.secret });
    expect(headers["webhook-id"]).toMatch(/^evt_test_[0-9a-f]{32}$/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    await expect(build.verifyWebhook({ payload: valid.payload, headers, secret: valid.secret })).resolves.toBeTruthy();
  });

  it("signs a replay for a test: an old timestamp is refused as too old", async () => {
    const headers = await build.sign({
      payload: valid.payload,
      secret: valid.secret,
      timestamp: new Date(Date.now() - 10 * 60 * 1000),
    });
    await expect(build.verifyWebhook({ payload: valid.payload, headers, secret: valid.secret })).rejects.toMatchObject({
      reason: "timestamp_too_old",
    });
  });

  it("refuses to sign with a malformed secret", async () => {
    await expect(build.sign({ payload: "{}", secret: "not-a-secret" })).rejects.toMatchObject({
      reason: "invalid_secret",
    });
  });

  it("verifies an Express request in either build", async () => {
    const raw = { body: Buffer.from(valid.payload), headers: headersOf(valid) };
    await expect(build.verifyExpressRequest(raw, { secret: valid.secret, now: valid.nowMs })).resolves.toMatchObject({
      id: valid.id,
    });
  });
});
