import { describe, expect, it } from "vitest";
import { createDisposableCheck, domainAndParents } from "./disposable.ts";

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
