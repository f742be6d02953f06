/**
 * The Node build: the same API as the default entry, with HMAC from `node:crypto` (synchronous and faster than
 * WebCrypto), and a helper for Express.
 *
 * @example
 * import express from "express";
 * import { verifyExpressRequest } from "@service/webhook-verifier";
 *
 * const app = express();
 * // express.raw keeps the exact bytes that were signed; express.json would re-serialise them.
 * app.post("/webhooks", express.raw({ type: "application/json" }), async (req, res) => {
 *   try {
 *     const event = await verifyExpressRequest(req, { secret: process.env.WEBHOOK_SECRET! });
 *     console.log(event.type);
 *     res.sendStatus(204);
 *   } catch {
 *     res.sendStatus(400);
 *   }
 * });
 */
import { createHmac } from "node:crypto";
import {
  type HeadersLike,
  type Hmac,
  type VerifyOptions,
  verifyRequestWith,
  verifyWith,
  type WebhookEvent,
  WebhookVerificationError,
} from "./core.js";

export * from "./core.js";

const hmacNode: Hmac = (key, content) => createHmac("sha256", key).update(content).digest();

/** @example const event = await verifyWebhook({ payload: rawBody, headers: req.headers, secret: "whsec_…" }); */
export function verifyWebhook(options: VerifyOptions): Promise<WebhookEvent> {
  return verifyWith(hmacNode, options);
}

/** @example const event = await verifyRequest(request, { secret: "whsec_…" }); */
export function verifyRequest(
  request: Request,
  options: Omit<VerifyOptions, "payload" | "headers">,
): Promise<WebhookEvent> {
  return verifyRequestWith(hmacNode, request, options);
}

/**
 * Verifies an Express request whose body was read with `express.raw()` (a Buffer) or as text.
 *
 * @example
 * app.post("/webhooks", express.raw({ type: "application/json" }), async (req, res) => {
 *   const event = await verifyExpressRequest(req, { secret: "whsec_…" });
 *   res.sendStatus(204);
 * });
 */
export function verifyExpressRequest(
  req: { body: unknown; headers: HeadersLike },
  options: Omit<VerifyOptions, "payload" | "headers">,
): Promise<WebhookEvent> {
  if (typeof req.body !== "string" && !(req.body instanceof Uint8Array)) {
    return Promise.reject(
      new WebhookVerificationError(
        "invalid_payload",
        'req.body is not the raw body: mount express.raw({ type: "application/json" }) on the webhook route.',
      ),
    );
  }
  return verifyWith(hmacNode, { ...options, payload: req.body, headers: req.headers });
}
