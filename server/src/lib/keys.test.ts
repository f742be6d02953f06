import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey, isWellFormedApiKey } from "../domain/api-keys/key-format.ts";
import { createDisposableCheck, domainAndParents } from "../domain/auth/disposable.ts";
import { clientIpKey } from "./client-ip.ts";
import { normalizeEmail } from "./email-address.ts";

describe("normalizeEmail", () => {
  it.each([
    ["  Ada@Example.COM ", "ada@example.com"],
    ["USER@Example.com", "user@example.com"],
    ["ada+tag@example.com", "ada+tag@example.com"],
    ["a.d.a@gmail.com", "a.d.a@gmail.com"],
    ["ada@Bücher.example", "ada@xn--bcher-kva.example"],
  ])("%j → %s", (given, want) => {
    expect(normalizeEmail(given)?.address).toBe(want);
  });

  it.each(["", "ada", "@example.com", "ada@", "ada@localhost", "a da@example.com", "ada@exa..mple.com"])(
    "refuses %j",
    (given) => {
      expect(normalizeEmail(given)).toBeUndefined();
    },
  );
});

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

describe("API key format", () => {
  it("generates keys that pass their own checksum, and differ", () => {
    const keys = Array.from({ length: 50 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(50);
    expect(displayPrefix(keys[0] as string)).toHaveLength(12);
  });

  it("refuses a key with one character changed", () => {
    const key = generateApiKey();
    const last = key.at(-1) === "A" ? "B" : "A";
    expect(isWellFormedApiKey(key.slice(0, -1) + last)).toBe(false);
    const middle = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(isWellFormedApiKey(middle)).toBe(false);
    expect(isWellFormedApiKey(`sk_test_${key.slice(8)}`)).toBe(false);
  });
});

describe("disposable e-mail check", () => {
  const isDisposable = createDisposableCheck(
    { allow: ["allowed.example"], deny: ["denied.example"] },
    new Set(["mailinator.com", "allowed.example"]),
  );

  it("lists a domain and its parents", () => {
    expect(domainAndParents("a.b.example.com")).toEqual(["a.b.example.com", "b.example.com", "example.com"]);
  });

  it.each([
    ["mailinator.com", true],
    ["x.y.mailinator.com", true],
    ["denied.example", true],
    ["sub.denied.example", true],
    ["allowed.example", false],
    ["example.com", false],
  ])("%s → %s", (domain, want) => {
    expect(isDisposable(domain)).toBe(want);
  });

  it("loads the maintained blocklist by default", () => {
    const check = createDisposableCheck({ allow: [], deny: [] });
    expect(check("mailinator.com")).toBe(true);
    expect(check("gmail.com")).toBe(false);
  });
});
