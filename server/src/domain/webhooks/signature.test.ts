import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deliveryHeaders, newWebhookSecret, signatureHeader } from "./signature.ts";

const vectors = JSON.parse(
  readFileSync(new URL("../../../../tests/vectors/webhook-signatures.json", import.meta.url), "utf8"),
);

describe("the server's webhook signer", () => {
  it("matches the Standard Webhooks reference vector", () => {
    const { secret, id, timestamp, payload, signature } = vectors.reference;
    expect(signatureHeader([secret], id, timestamp, payload)).toBe(signature);
  });

  it("produces the shared test vector that the verifier checks", () => {
    const { secret, id, timestamp, payload, signature } = vectors.valid;
    expect(signatureHeader([secret], id, timestamp, payload)).toBe(signature);
  });

  it("signs with both secrets during a rotation, newest first, space-separated", () => {
    const { secret, id, timestamp, payload } = vectors.valid;
    expect(signatureHeader([secret, vectors.rotation.previousSecret], id, timestamp, payload)).toBe(
      vectors.rotation.signature,
    );
  });

  it("makes secrets of 32 random bytes with the whsec_ prefix", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it("sends the signature under both header names", () => {
    const headers = deliveryHeaders({
      eventId: "evt_1",
      eventType: "lead.captured",
      deliveryId: "dlv_1",
      timestamp: "1",
      signature: "v1,x",
    });
    expect(headers["x-service-signature"]).toBe(headers["webhook-signature"]);
    expect(headers).toMatchObject({
      "webhook-id": "evt_1",
      "webhook-timestamp": "1",
      "x-service-event": "lead.captured",
      "x-service-delivery": "dlv_1",
    });
  });
});
