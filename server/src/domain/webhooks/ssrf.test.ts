import { describe, expect, it } from "vitest";
import { blockedAddress, checkWebhookUrl, pinnedLookup } from "./ssrf.ts";

describe("blockedAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["::1", "loopback"],
    ["fe80::1", "linkLocal"],
    ["fd00:ec2::254", "uniqueLocal"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:169.254.169.254", "IPv4-mapped linkLocal"],
    // As the URL parser writes https://[::127.0.0.1]/ (ipaddr.js reads the dotted form as IPv4-mapped).
    ["::7f00:1", "IPv4-compatible loopback"],
    ["::a00:1", "IPv4-compatible private"],
    ["::808:808", "IPv4-compatible"],
    ["::ffff:0:192.168.0.1", "IPv4-translated private"],
    ["64:ff9b::7f00:1", "NAT64 loopback"],
    ["64:ff9b::a9fe:a9fe", "NAT64 linkLocal"],
    ["64:ff9b:1::a00:1", "NAT64 private"],
    ["64:ff9b::808:808", "NAT64"],
    ["2002:7f00:1::", "6to4 loopback"],
    ["2002:c0a8:101::1", "6to4 private"],
    ["2002:808:808::1", "6to4"],
    // Teredo: server 65.54.227.120, client 127.0.0.1 stored inverted (0x80ff:0xfffe).
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo loopback"],
    ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo private"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(blockedAddress(address)).toBe(reason);
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001::200e"])(
    "allows the public address %s",
    (address) => {
      expect(blockedAddress(address)).toBeUndefined();
    },
  );
});

describe("checkWebhookUrl", () => {
  const resolveTo = (...addresses: string[]) => ({ allowPrivateNetworks: false, resolve: async () => addresses });

  it.each([
    ["http://hooks.example.com/x", /https/],
    ["https://user:pass@hooks.example.com/x", /credentials/],
    ["https://127.0.0.1/x", /loopback/],
    ["https://[::1]/x", /loopback/],
    ["https://[::127.0.0.1]/x", /IPv4-compatible loopback/],
    ["https://[64:ff9b::10.0.0.1]/x", /NAT64 private/],
    ["https://169.254.169.254/latest/meta-data", /linkLocal/],
    ["not a url", /parse/],
  ])("refuses %s", async (url, reason) => {
    await expect(checkWebhookUrl(url, resolveTo("93.184.216.34"))).rejects.toMatchObject({
      code: "WEBHOOK_URL_NOT_ALLOWED",
      detail: expect.stringMatching(reason),
    });
  });

  it("refuses a name that resolves to a private address, even among public ones", async () => {
    await expect(
      checkWebhookUrl("https://internal.example.com/x", resolveTo("93.184.216.34", "10.0.0.5")),
    ).rejects.toMatchObject({
      code: "WEBHOOK_URL_NOT_ALLOWED",
    });
  });

  it("accepts a name that resolves to public addresses only", async () => {
    await expect(checkWebhookUrl("https://hooks.example.com/x", resolveTo("93.184.216.34"))).resolves.toBeUndefined();
  });

  it("lets private addresses through only when allowed (local development, tests)", async () => {
    await expect(checkWebhookUrl("https://127.0.0.1:8443/x", { allowPrivateNetworks: true })).resolves.toBeUndefined();
    await expect(checkWebhookUrl("http://127.0.0.1/x", { allowPrivateNetworks: true })).rejects.toMatchObject({
      code: "WEBHOOK_URL_NOT_ALLOWED",
    });
  });
});

describe("pinnedLookup", () => {
  const lookupWith = (addresses: string[], allowPrivateNetworks = false) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
      pinnedLookup({ allowPrivateNetworks, resolve: async () => addresses })(
        "hooks.example.com",
        {},
        (error, address) => resolve({ error, address }),
      );
    });

  it("connects to the checked address", async () => {
    expect(await lookupWith(["93.184.216.34"])).toEqual({ error: null, address: "93.184.216.34" });
  });

  it("refuses at connection time a name that now resolves to a private address (DNS rebinding)", async () => {
    const { error } = await lookupWith(["10.0.0.7"]);
    expect(error?.code).toBe("EADDRNOTALLOWED");
    expect((await lookupWith(["93.184.216.34", "169.254.169.254"])).error?.code).toBe("EADDRNOTALLOWED");
  });

  it("lets private addresses through only when allowed", async () => {
    expect(await lookupWith(["127.0.0.1"], true)).toEqual({ error: null, address: "127.0.0.1" });
  });
});
