/**
 * The Node build: the same API as the default entry, with HMAC from `node:crypto` (synchronous and faster than
 * WebCrypto). Node picks it through the package's `node` export condition, for `import` and `require` alike.
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
  type ExpressLikeRequest,
  type Hmac,
  type SignedHeaders,
  type SignOptions,
  signWith,
  type VerifyOptions,
  verifyExpressRequestWith,
  verifyRequestWith,
  verifyWith,
  type WebhookEvent,
} from "./verify.js";

export {
  type ConversationCreatedEvent,
  DEFAULT_TOLERANCE_IN_SECONDS,
  type ExpressLikeRequest,
  type HeadersLike,
  type LeadCapturedEvent,
  type SignedHeaders,
  type SignOptions,
  type TicketUpdatedEvent,
  type VerificationFailure,
  type VerifyOptions,
  type WebhookEvent,
  WebhookVerificationError,
} from "./verify.js";

const hmacNode: Hmac = (key, content) => createHmac("sha256", key).update(content).digest();

/**
 * Verifies a delivery: the signature (either header name), and a timestamp within the tolerance.
 *
 * @example
 * const event = await verifyWebhook({ payload: rawBody, headers: req.headers, secret: "whsec_…" });
 */
export function verifyWebhook(options: VerifyOptions): Promise<WebhookEvent> {
  return verifyWith(hmacNode, options);
}

/**
 * Verifies a fetch-style `Request` (reads its raw body).
 *
 * @example
 * const event = await verifyRequest(request, { secret: "whsec_…" });
 */
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
  req: ExpressLikeRequest,
  options: Omit<VerifyOptions, "payload" | "headers">,
): Promise<WebhookEvent> {
  return verifyExpressRequestWith(hmacNode, req, options);
}

/**
 * Signs a message as the service does, for a receiver's own tests (Standard Webhooks compatible).
 *
 * @example
 * const payload = JSON.stringify({ id: "evt_1", type: "lead.captured" });
 * const headers = await sign({ payload, secret: "whsec_…" });
 * await fetch("http://127.0.0.1:8080/webhooks", { method: "POST", headers, body: payload });
 */
export function sign(options: SignOptions): Promise<SignedHeaders> {
  return signWith(hmacNode, options);
}
