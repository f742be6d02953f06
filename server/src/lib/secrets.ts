/** Random tokens and their stored form. */
import { hash, randomBytes } from "node:crypto";

/** 256 random bits, URL-safe: for e-mail links, session cookies and invite codes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/**
 * SHA-256 of a high-entropy secret. Enough for tokens and API keys (unguessable by construction, so a fast hash
 * loses nothing and keeps lookups cheap); passwords use the KDF in `passwords.ts` instead.
 */
export function sha256(value: string): Buffer {
  return hash("sha256", value, "buffer");
}
