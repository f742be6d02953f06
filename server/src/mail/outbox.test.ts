import { describe, expect, it } from "vitest";
import { firstLink } from "./outbox.ts";

describe("firstLink", () => {
  it.each([
    {
      given: "Confirm:\n\nhttp://127.0.0.1:3000/verify-email#token=vt_abc-DEF_1\n\nThe link works once.",
      want: "http://127.0.0.1:3000/verify-email#token=vt_abc-DEF_1",
    },
    { given: "sign in at https://app.example.com/login or reset", want: "https://app.example.com/login" },
    { given: "sign in at https://app.example.com/login.", want: "https://app.example.com/login" },
    { given: "no link here", want: null },
  ])("finds $want", ({ given, want }) => {
    expect(firstLink(given)).toBe(want);
  });
});
