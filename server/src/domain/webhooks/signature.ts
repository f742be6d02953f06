/**
 * Signing of webhook deliveries (Standard Webhooks): HMAC-SHA256 keyed with the base64-decoded part of the secret
 * after `whsec_`, over `{webhook-id}.{webhook-timestamp}.{raw body}`, sent as `v1,<base64>`. During a rotation the
 * previous secret signs too, and the values are separated by spaces (newest first).
 */
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

function signOne(secret: string, id: string, timestamp: string, body: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("webhook secrets start with whsec_");
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The secrets that sign now: the current one, and the previous one during its overlap after a rotation (ARCHITECTURE:
 * "the old secret keeps signing for 24 h").
 */
export function signingSecrets(
  webhook: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null },
  now = Date.now(),
): string[] {
  const { secret, previous_secret: previous, previous_secret_expires_at: until } = webhook;
  return previous && until && until.getTime() > now ? [secret, previous] : [secret];
}

/**
 * The signature header value for every secret that signs (the current one first).
 *
 * @example
 * signatureHeader(["whsec_…"], "evt_…", "1795320000", body) // "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: string, body: string): string {
  return secrets.map((secret) => signOne(secret, id, timestamp, body)).join(" ");
}

/** The headers of one delivery attempt. `X-Service-Signature` (the contract's name) equals `webhook-signature`. */
export function deliveryHeaders(input: {
  eventId: string;
  eventType: string;
  deliveryId: string;
  timestamp: string;
  signature: string;
}): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": input.eventId,
    "webhook-timestamp": input.timestamp,
    "webhook-signature": input.signature,
    "x-service-signature": input.signature,
    "x-service-event": input.eventType,
    "x-service-delivery": input.deliveryId,
    "user-agent": "ServicePlatform-Webhooks/1.0",
  };
}
