import { describe, expect, it } from "vitest";
import { clientIpKey } from "./client-ip.ts";

describe("clientIpKey", () => {
  it.each([
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::1", "2001:db8:1:2::/64"],
    ["::1", "::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    [undefined, "unknown"],
    ["not an ip", "unknown"],
  ])("%s → %s", (given, want) => {
    expect(clientIpKey(given)).toBe(want);
  });
});
