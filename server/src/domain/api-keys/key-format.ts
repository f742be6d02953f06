/**
 * API key values: `sk_live_` (or `sk_test_`, a test mode key), 32 random base62 characters (190 bits) and a
 * 6-character base62 CRC-32 of them.
 * The fixed prefix lets secret scanners recognise leaked keys; the checksum lets the server refuse a mistyped or
 * made-up key without a database lookup (the scheme GitHub uses for its tokens).
 */
import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Mode } from "../modes.ts";

const KEY_PREFIXES: Readonly<Record<Mode, string>> = { live: "sk_live_", test: "sk_test_" };
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** How much of the key lists show, to recognise it: the prefix and 4 characters. */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIXES.live.length + 4;
const KEY_PATTERN = new RegExp(`^sk_(?:live|test)_([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function base62(value: number, length: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

/**
 * @example
 * generateApiKey("live") // "sk_live_4eC39HqLyjWDarjtT1zdp7dcW3x9Kq2P0aBv1c"
 */
export function generateApiKey(mode: Mode): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${KEY_PREFIXES[mode]}${random}${checksum(random)}`;
}

/** Whether a value has the shape and checksum of a key this service issued. */
export function isWellFormedApiKey(value: string): boolean {
  const match = KEY_PATTERN.exec(value);
  return match?.[1] !== undefined && match[2] === checksum(match[1]);
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
