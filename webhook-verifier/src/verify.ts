/**
 * What every runtime shares: reading the headers, checking the timestamp, building the signed content and
 * comparing signatures in constant time, and signing (for receivers' own tests). The HMAC itself comes from the entry
 * point (WebCrypto in index.ts, node:crypto in node.ts). Internal: the entry points choose what is public.
 *
 * The scheme is Standard Webhooks (https://www.standardwebhooks.com): the signed content is
 * `{webhook-id}.{webhook-timestamp}.{raw body}`, HMAC-SHA256 keyed with the base64-decoded part of the secret after
 * `whsec_`, sent as `v1,<base64>`; several space-separated values during a secret rotation.
 */
import type { components } from "./generated/events.js";

/**
 * Any event the service delivers (generated from the contract); `type` tells them apart.
 *
 * @example
 * const event: WebhookEvent = await verifyWebhook({ payload, headers, secret });
 * if (event.type === "ticket.updated") console.log(event.data.changed_fields);
 */
export type WebhookEvent = components["schemas"]["Event"];
/** `lead.captured`. @example if (event.type === "lead.captured") { const captured: LeadCapturedEvent = event; console.log(captured.data.object.email); } */
export type LeadCapturedEvent = components["schemas"]["LeadCapturedEvent"];
/** `conversation.created`. @example if (event.type === "conversation.created") { const created: ConversationCreatedEvent = event; console.log(created.data.object.subject); } */
export type ConversationCreatedEvent = components["schemas"]["ConversationCreatedEvent"];
/** `ticket.updated`, with the changed fields. @example if (event.type === "ticket.updated") { const updated: TicketUpdatedEvent = event; console.log(updated.data.changed_fields); } */
export type TicketUpdatedEvent = components["schemas"]["TicketUpdatedEvent"];

/**
 * Why a delivery was refused.
 *
 * @example
 * const retryable: VerificationFailure[] = ["timestamp_too_new"]; // a clock to fix, not an attack
 */
export type VerificationFailure =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "invalid_signature_header"
  | "no_matching_signature"
  | "invalid_secret"
  | "invalid_payload";

/**
 * The one error of this package; `reason` says what was wrong.
 *
 * @example
 * try {
 *   await verifyWebhook({ payload, headers, secret });
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) console.warn("refused:", error.reason);
 * }
 */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/**
 * Headers as a fetch `Headers`, or a plain object (Node's `req.headers`), with names in any case.
 *
 * @example
 * const headers: HeadersLike = req.headers; // or request.headers in a fetch handler
 */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

/**
 * What `verifyWebhook` checks.
 *
 * @example
 * const options: VerifyOptions = { payload: rawBody, headers: req.headers, secrets: [newSecret, oldSecret] };
 */
export interface VerifyOptions {
  /** The raw body, exactly as received: a string or bytes, never a parsed object. */
  payload: string | Uint8Array;
  headers: HeadersLike;
  /** The subscription's secret (`whsec_…`). */
  secret?: string;
  /** Several secrets, during your own rotation: a delivery signed with any of them passes. */
  secrets?: readonly string[];
  /** How far the timestamp may be from now, in seconds, either way (default 300). */
  toleranceInSeconds?: number;
  /** The current time, for tests (milliseconds since the epoch). */
  now?: number;
}

/**
 * How far a delivery's timestamp may be from now by default, either way (Standard Webhooks advises 5 minutes).
 *
 * @example
 * await verifyWebhook({ payload, headers, secret, toleranceInSeconds: 2 * DEFAULT_TOLERANCE_IN_SECONDS });
 */
export const DEFAULT_TOLERANCE_IN_SECONDS = 5 * 60;
const SECRET_PREFIX = "whsec_";

export type Hmac = (key: Uint8Array, content: Uint8Array) => Uint8Array | Promise<Uint8Array>;

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

function base64ToBytes(value: string): Uint8Array {
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The key bytes of a `whsec_` secret; a malformed secret is a programming error, refused loudly. */
function secretKey(secret: string): Uint8Array {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX)) {
    throw new WebhookVerificationError(
      "invalid_secret",
      "The secret must be the whsec_… value shown when the webhook was created.",
    );
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new WebhookVerificationError("invalid_secret", "The secret after whsec_ is not base64.");
  }
  const key = base64ToBytes(encoded);
  if (key.length < 24)
    throw new WebhookVerificationError("invalid_secret", "The secret is too short to be one of ours.");
  return key;
}

/** Constant-time equality of two byte strings (the time depends on the length only). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

const encoder = new TextEncoder();

/** `{id}.{timestamp}.{payload}` as bytes: the signed content. */
function signedContent(id: string, timestamp: string, payload: string | Uint8Array): Uint8Array {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return content;
}

/** Checks everything; resolves with the parsed event, or throws WebhookVerificationError. */
export async function verifyWith(hmac: Hmac, options: VerifyOptions): Promise<WebhookEvent> {
  const secrets = options.secrets ?? (options.secret === undefined ? [] : [options.secret]);
  if (secrets.length === 0) throw new WebhookVerificationError("invalid_secret", "Pass secret or secrets.");
  const keys = secrets.map(secretKey);
  const payload = options.payload;
  if (typeof payload !== "string" && !(payload instanceof Uint8Array)) {
    throw new WebhookVerificationError(
      "invalid_payload",
      "Pass the raw body (a string or bytes), not a parsed object: re-serialised JSON does not match the signature.",
    );
  }

  const id = header(options.headers, "webhook-id");
  const timestamp = header(options.headers, "webhook-timestamp");
  const signatures = header(options.headers, "webhook-signature") ?? header(options.headers, "x-service-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "missing_header",
      "webhook-id, webhook-timestamp and a signature header are required.",
    );
  }
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not unix seconds.");
  const tolerance = options.toleranceInSeconds ?? DEFAULT_TOLERANCE_IN_SECONDS;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Number(timestamp) < now - tolerance)
    throw new WebhookVerificationError("timestamp_too_old", "The delivery is too old: a replay?");
  if (Number(timestamp) > now + tolerance)
    throw new WebhookVerificationError("timestamp_too_new", "The delivery is from the future: check your clock.");

  const candidates: Uint8Array[] = [];
  for (const part of signatures.trim().split(/\s+/)) {
    const [version, value] = part.split(",", 2);
    if (version !== "v1" || !value) continue;
    try {
      candidates.push(base64ToBytes(value));
    } catch {
      candidates.push(new Uint8Array(0)); // a v1 value that is not base64: present, but it cannot match
    }
  }
  if (candidates.length === 0) {
    throw new WebhookVerificationError("invalid_signature_header", "No v1 signature in the signature header.");
  }
  const content = signedContent(id, timestamp, payload);
  for (const key of keys) {
    const expected = await hmac(key, content);
    // Compare with every candidate, without stopping early on a match's position.
    let matched = false;
    for (const candidate of candidates) matched = constantTimeEqual(expected, candidate) || matched;
    if (matched) {
      const text = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
      try {
        return JSON.parse(text) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError("invalid_payload", "The signed body is not JSON.");
      }
    }
  }
  throw new WebhookVerificationError("no_matching_signature", "No signature matches the secret.");
}

/** Reads a fetch-style request's raw body and verifies it. */
export async function verifyRequestWith(
  hmac: Hmac,
  request: Request,
  options: Omit<VerifyOptions, "payload" | "headers">,
): Promise<WebhookEvent> {
  return verifyWith(hmac, {
    ...options,
    payload: new Uint8Array(await request.arrayBuffer()),
    headers: request.headers,
  });
}

/**
 * A request as Express (or any Node framework) hands it over: the raw body read by `express.raw()` (a Buffer) or as
 * text, and Node's headers. Structural, so that it needs neither Express's types nor Node's.
 *
 * @example
 * const request: ExpressLikeRequest = { body: rawBuffer, headers: req.headers };
 */
export interface ExpressLikeRequest {
  body: unknown;
  headers: HeadersLike;
}

/** Verifies an Express-style request whose body is the raw bytes; explains the usual mistake of a parsed body. */
export function verifyExpressRequestWith(
  hmac: Hmac,
  req: ExpressLikeRequest,
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
  return verifyWith(hmac, { ...options, payload: req.body, headers: req.headers });
}

/**
 * What `sign` signs.
 *
 * @example
 * const options: SignOptions = { payload: JSON.stringify(event), secret: "whsec_…", timestamp: new Date() };
 */
export interface SignOptions {
  /** The body to sign, exactly as it will be sent. */
  payload: string | Uint8Array;
  /** The secret (`whsec_…`). */
  secret: string;
  /** The `webhook-id` (default a random `evt_test_…`). */
  id?: string;
  /** When it was signed (default now); a past time makes a replay for a test. */
  timestamp?: Date;
}

/**
 * The three Standard Webhooks headers of a signed message (a type alias, so it is usable as any headers record).
 *
 * @example
 * const headers: SignedHeaders = await sign({ payload, secret });
 * await fetch(receiverUrl, { method: "POST", headers, body: payload });
 */
export type SignedHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** Signs a message as the service does (Standard Webhooks: `v1,<base64 of HMAC-SHA256>`). */
export async function signWith(hmac: Hmac, options: SignOptions): Promise<SignedHeaders> {
  const key = secretKey(options.secret);
  const id = options.id ?? `evt_test_${crypto.randomUUID().replaceAll("-", "")}`;
  const timestamp = String(Math.floor((options.timestamp ?? new Date()).getTime() / 1000));
  const signature = bytesToBase64(await hmac(key, signedContent(id, timestamp, options.payload)));
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
