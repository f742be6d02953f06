/**
 * The SSRF guard of webhook URLs: https only, no credentials, and no address that reaches inside a network
 * (loopback, private, link-local, CGNAT, unique-local, IPv4-mapped private, cloud metadata, multicast, reserved).
 * The name is resolved and checked when the subscription is saved, and again at every connection, which then uses
 * exactly the checked address (`pinnedLookup`): a name that later resolves elsewhere (DNS rebinding) is refused.
 * `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true` lifts the address rule, for local development and tests only. Outside
 * production the refusal names that setting (a developer's first local receiver is refused otherwise with no way
 * out in sight); in production it does not, since an answer to a customer must not reveal how the service is run.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { promisify } from "node:util";
import ipaddr from "ipaddr.js";
import { AppError } from "../../errors.ts";

const lookupAll = promisify(dnsLookup) as (host: string, options: { all: true }) => Promise<LookupAddress[]>;

/**
 * IPv6 forms that carry an IPv4 address (RFC 4291 §2.5.5, RFC 6052, RFC 8215, RFC 3056, RFC 4380), with the
 * address they carry. A stack or a translator on the way may deliver to that IPv4 address, so `::127.0.0.1`
 * reaches loopback although ipaddr.js files it under plain unicast.
 */
function embeddedIPv4(address: ipaddr.IPv6): { form: string; ipv4: ipaddr.IPv4 } | undefined {
  const p = address.parts;
  const v4 = (high: number, low: number) => ipaddr.IPv4.parse(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  const zero = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zero(0, 5) && p[5] === 0xffff) return { form: "IPv4-mapped", ipv4: v4(p[6] ?? 0, p[7] ?? 0) };
  // ::/96 less :: and ::1 (unspecified and loopback are refused by their own range).
  if (zero(0, 6) && (p[6] ?? 0) !== 0) return { form: "IPv4-compatible", ipv4: v4(p[6] ?? 0, p[7] ?? 0) };
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: "IPv4-translated", ipv4: v4(p[6] ?? 0, p[7] ?? 0) };
  if (p[0] === 0x64 && p[1] === 0xff9b && (zero(2, 6) || p[2] === 1)) {
    return { form: "NAT64", ipv4: v4(p[6] ?? 0, p[7] ?? 0) };
  }
  if (p[0] === 0x2002) return { form: "6to4", ipv4: v4(p[1] ?? 0, p[2] ?? 0) };
  // Teredo: the client's address is stored inverted in the last 32 bits.
  if (p[0] === 0x2001 && p[1] === 0) return { form: "Teredo", ipv4: v4(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff) };
  return undefined;
}

/** Why an address may not be a webhook target; undefined when it is a public unicast address. */
export function blockedAddress(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return "not an IP address";
  }
  if (parsed.kind() === "ipv6") {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    if (embedded) {
      const inner = blockedAddress(embedded.ipv4.toString());
      if (inner) return `${embedded.form} ${inner}`;
      // Only the mapped form of a public address is an ordinary way to write it; the translation and tunnel
      // prefixes are refused whatever they carry.
      return embedded.form === "IPv4-mapped" ? undefined : embedded.form;
    }
  }
  const range = parsed.range();
  // Only "unicast" is a public address; every other named range (private, loopback, linkLocal — which holds the
  // 169.254.169.254 metadata service —, carrierGradeNat, uniqueLocal, multicast, reserved…) is refused.
  return range === "unicast" ? undefined : range;
}

export interface UrlCheckOptions {
  allowPrivateNetworks: boolean;
  /** Name the setting that allows private addresses when refusing one (outside production only; default false). */
  nameSettingInRefusal?: boolean;
  resolve?: (host: string) => Promise<string[]>;
}

/** The setting that lifts the address rule, as the operator writes it. */
const ALLOW_PRIVATE_SETTING = "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true";

const defaultResolve = async (host: string) => (await lookupAll(host, { all: true })).map((entry) => entry.address);

function refuse(detail: string): AppError {
  return new AppError("WEBHOOK_URL_NOT_ALLOWED", { detail, errors: [{ path: "body.url", message: detail }] });
}

/** Checks a subscription URL when it is saved; throws 422 WEBHOOK_URL_NOT_ALLOWED with the reason. */
export async function checkWebhookUrl(raw: string, options: UrlCheckOptions): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("The URL does not parse.");
  }
  if (url.protocol !== "https:") throw refuse("Webhook URLs must use https.");
  if (url.username || url.password) throw refuse("Webhook URLs must not carry credentials.");
  if (options.allowPrivateNetworks) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? defaultResolve)(host);
    } catch {
      throw refuse(`${host} does not resolve.`);
    }
  }
  if (addresses.length === 0) throw refuse(`${host} does not resolve.`);
  for (const address of addresses) {
    const reason = blockedAddress(address);
    if (!reason) continue;
    const refusal = `${host} resolves to a ${reason} address (${address}); webhooks go to public addresses only.`;
    throw refuse(
      options.nameSettingInRefusal
        ? `${refusal} For a receiver on your own machine or network, start the service with ${ALLOW_PRIVATE_SETTING} (local development only).`
        : refusal,
    );
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for https.request: resolves, refuses when any address is not allowed, and connects to the first
 * checked one (the address is pinned for this connection).
 */
export function pinnedLookup(options: UrlCheckOptions) {
  return function lookup(host: string, lookupOptions: { all?: boolean }, callback: LookupCallback): void {
    (options.resolve ?? defaultResolve)(host).then(
      (addresses) => {
        const blocked = options.allowPrivateNetworks ? undefined : addresses.map(blockedAddress).find(Boolean);
        const first = addresses[0];
        if (blocked || !first) {
          const error = new Error(`${host} resolves to a ${blocked ?? "no"} address; refused`) as NodeJS.ErrnoException;
          error.code = "EADDRNOTALLOWED";
          callback(error, "", 4);
          return;
        }
        const family = first.includes(":") ? 6 : 4;
        if (lookupOptions.all) callback(null, [{ address: first, family }]);
        else callback(null, first, family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4),
    );
  };
}
