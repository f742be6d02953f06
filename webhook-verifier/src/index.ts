/**
 * Verifies signed webhook deliveries of the Service Platform in any runtime with WebCrypto: Deno, Bun, Cloudflare
 * Workers, browsers, and Node (which gets the `node:crypto` build of the same API through the package's `node`
 * export condition). Zero dependencies.
 *
 * @example
 * import { verifyRequest } from "@service/webhook-verifier";
 *
 * export default {
 *   async fetch(request: Request, env: { WEBHOOK_SECRET: string }): Promise<Response> {
 *     const event = await verifyRequest(request, { secret: env.WEBHOOK_SECRET }).catch(() => undefined);
 *     if (!event) return new Response("invalid signature", { status: 400 });
 *     console.log(event.type, event.id);
 *     return new Response(null, { status: 204 });
 *   },
 * };
 */
import {
  bytesToBase64,
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

// importKey costs more than the HMAC itself: keys are imported once per secret (a receiver has one or two).
const importedKeys = new Map<string, Promise<CryptoKey>>();
const MAX_IMPORTED_KEYS = 64;

const hmacWebCrypto: Hmac = async (key, content) => {
  const id = bytesToBase64(key);
  let cryptoKey = importedKeys.get(id);
  if (!cryptoKey) {
    cryptoKey = crypto.subtle.importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (importedKeys.size >= MAX_IMPORTED_KEYS) importedKeys.clear();
    importedKeys.set(id, cryptoKey);
  }
  return new Uint8Array(await crypto.subtle.sign("HMAC", await cryptoKey, content as BufferSource));
};

/**
 * Verifies a delivery: the signature (either header name), and a timestamp within the tolerance. Resolves with the
 * typed event; rejects with WebhookVerificationError.
 *
 * @example
 * const event = await verifyWebhook({ payload: rawBody, headers: request.headers, secret: "whsec_…" });
 * if (event.type === "ticket.updated") console.log(event.data.changed_fields);
 */
export function verifyWebhook(options: VerifyOptions): Promise<WebhookEvent> {
  return verifyWith(hmacWebCrypto, options);
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
  return verifyRequestWith(hmacWebCrypto, request, options);
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
  return verifyExpressRequestWith(hmacWebCrypto, req, options);
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
  return signWith(hmacWebCrypto, options);
}
