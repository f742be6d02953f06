/**
 * The rate-limit key of a client address. IPv4 as it is; an IPv4-mapped IPv6 address as its IPv4; any other
 * IPv6 address by its /64, since one subscriber typically holds a whole /64 (RFC 6177) and could otherwise
 * rotate through 2^64 keys.
 */
import ipaddr from "ipaddr.js";

/**
 * @example
 * clientIpKey("2001:db8:1:2:aaaa::1") // "2001:db8:1:2::/64"
 * clientIpKey("::ffff:192.0.2.7")     // "192.0.2.7"
 */
export function clientIpKey(ip: string | undefined): string {
  if (!ip) return "unknown";
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip.replace(/%.*$/, ""));
  } catch {
    return "unknown";
  }
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
    // The first four 16-bit groups are the /64; toString() is the RFC 5952 compressed form ("2001:db8:1:2::").
    return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
  }
  return parsed.toString();
}
