import { describe, expect, it } from "vitest";
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
