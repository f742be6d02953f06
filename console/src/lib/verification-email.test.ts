import { describe, expect, it } from "vitest";
import { rememberVerificationEmail, takeVerificationEmail } from "./verification-email.ts";

function memoryStore(entries: Record<string, string> = {}) {
  const map = new Map(Object.entries(entries));
  return {
    map,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
  };
}

const NOW = Date.parse("2026-06-15T12:00:00Z");
const HOUR_MS = 3600 * 1000;

describe("takeVerificationEmail", () => {
  it("returns the remembered address once, within 24 hours", () => {
    const store = memoryStore();
    rememberVerificationEmail("ada@example.com", NOW, store);
    expect(takeVerificationEmail(NOW + 23 * HOUR_MS, store)).toBe("ada@example.com");
    expect(takeVerificationEmail(NOW + 23 * HOUR_MS, store)).toBeUndefined();
    expect(store.map.size).toBe(0);
  });

  it("keeps the latest address only", () => {
    const store = memoryStore();
    rememberVerificationEmail("typo@exmaple.com", NOW, store);
    rememberVerificationEmail("ada@example.com", NOW + 1000, store);
    expect(takeVerificationEmail(NOW + 2000, store)).toBe("ada@example.com");
  });

  it.each([
    { given: "after 24 hours", saved: JSON.stringify({ email: "ada@example.com", until: NOW }) },
    { given: "not JSON", saved: "ada@example.com" },
    { given: "JSON null", saved: "null" },
    { given: "no expiry", saved: JSON.stringify({ email: "ada@example.com" }) },
    { given: "an empty address", saved: JSON.stringify({ email: "", until: NOW + HOUR_MS }) },
    { given: "an address that is not a string", saved: JSON.stringify({ email: 1, until: NOW + HOUR_MS }) },
  ])("returns nothing for $given, and removes it", ({ saved }) => {
    const store = memoryStore({ "console.verification-email": saved });
    expect(takeVerificationEmail(NOW, store)).toBeUndefined();
    expect(store.map.size).toBe(0);
  });

  it("returns nothing when the browser refuses storage", () => {
    const refusing = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => undefined,
    };
    expect(() => rememberVerificationEmail("ada@example.com", NOW, refusing)).not.toThrow();
    expect(takeVerificationEmail(NOW, refusing)).toBeUndefined();
    expect(takeVerificationEmail(NOW, undefined)).toBeUndefined();
  });
});
