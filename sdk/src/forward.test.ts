/**
 * The signer of `listen` against the vectors the service's signer and the verifier share: a forward must verify
 * exactly as a delivery does.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newSecret, sign } from "./listen.js";

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
