/**
 * E-mail addresses as keys: trimmed and lower-cased, the domain in punycode (IDNA, via WHATWG URL's
 * `domainToASCII`), nothing more: no dot or plus-tag folding, which would merge distinct mailboxes on most
 * providers.
 */
import { domainToASCII } from "node:url";

export interface EmailAddress {
  /** `local@domain`, lower-case, domain in ASCII. */
  readonly address: string;
  readonly domain: string;
}

/**
 * @example
 * normalizeEmail("  Ada@Bücher.Example ") // { address: "ada@xn--bcher-kva.example", domain: "xn--bcher-kva.example" }
 */
export function normalizeEmail(raw: string): EmailAddress | undefined {
  const trimmed = raw.trim().toLowerCase();
  const at = trimmed.lastIndexOf("@");
  if (at <= 0 || at === trimmed.length - 1) return undefined;
  const local = trimmed.slice(0, at);
  if (/[\s@]/.test(local) || local.length > 64) return undefined;
  const domain = domainToASCII(trimmed.slice(at + 1));
  // A domain needs a dot and no empty labels; domainToASCII returns "" for what IDNA refuses.
  if (domain === "" || !domain.includes(".") || domain.split(".").some((label) => label === "")) return undefined;
  const address = `${local}@${domain}`;
  if (address.length > 254) return undefined;
  return { address, domain };
}
