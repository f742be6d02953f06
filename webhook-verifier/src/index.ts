/**
 * Verifies signed webhook deliveries of the Service Platform in any runtime with WebCrypto: Deno, Bun, Cloudflare
 * Workers, browsers, and Node (which also gets the faster `node:crypto` build through the package's `node`
 * export condition). Zero dependencies.
 *
 * @example
 * import { verifyRequest } from "@service/webhook-verifier";
 *
 * export default {
 *   async fetch(request: Request): Promise<Response> {
 *     const event = await verifyRequest(request, { secret: env.WEBHOOK_SECRET }).catch(() => undefined);
 *     if (!event) return new Response("invalid signature", { status: 400 });
 *     console.log(event.type, event.data.object.id);
 *     return new Response(null, { status: 204 });
 *   },
 * };
 */
import {
  bytesToBase64,
  type Hmac,
  type VerifyOptions,
  verifyRequestWith,
  verifyWith,
  type WebhookEvent,
} from "./core.js";

export * from "./core.js";

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
