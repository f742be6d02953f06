import { describe, expect, it } from "vitest";
import { isStorableDateTime } from "../lib/date-time.ts";
import { BODY_MAX_DEPTH, unstorableFields, unstorableString } from "./storable.ts";

describe("isStorableDateTime", () => {
  it.each([
    { given: "2026-01-01T00:00:00Z", want: true },
    { given: "2026-01-01t00:00:00z", want: true },
    { given: "2026-01-01T00:00:00.123456+15:59", want: true },
    { given: "2024-02-29T12:00:00-05:00", want: true },
    { given: "0001-01-01T00:00:00Z", want: true },
    { given: "9999-12-31T23:59:59Z", want: true },
    { given: "0000-01-01T00:00:00Z", want: false },
    { given: "0001-01-01T00:30:00+01:00", want: false },
    { given: "2026-01-01T00:00:00+16:00", want: false },
    { given: "2026-01-01T00:00:00-23:59", want: false },
    { given: "2026-02-29T00:00:00Z", want: false },
    { given: "2026-02-30T00:00:00Z", want: false },
    { given: "2026-13-01T00:00:00Z", want: false },
    { given: "2026-01-01T24:00:00Z", want: false },
    { given: "2026-01-01", want: false },
    { given: "2026-01-01T00:00:00", want: false },
  ])("$given → $want", ({ given, want }) => {
    expect(isStorableDateTime(given)).toBe(want);
  });
});

describe("unstorableString", () => {
  it.each([
    { given: "plain", want: undefined },
    { given: "emoji 😀 is a surrogate pair", want: undefined },
    { given: "nul\u0000", want: "must not contain U+0000 (NUL)" },
    { given: "lone high \ud800", want: "must not contain an unpaired UTF-16 surrogate" },
    { given: "lone low \udc00 here", want: "must not contain an unpaired UTF-16 surrogate" },
  ])("$given", ({ given, want }) => {
    expect(unstorableString(given)).toBe(want);
  });
});

describe("unstorableFields", () => {
  const nest = (levels: number): unknown => (levels === 0 ? "leaf" : { next: nest(levels - 1) });

  it("names each bad value and key by its path", () => {
    expect(
      unstorableFields({ name: "a\u0000", tags: ["ok", "\ud800"], custom_attributes: { "k\u0000": 1 } }, "body"),
    ).toEqual([
      { path: 'body.custom_attributes."k\\u0000"', message: "property name must not contain U+0000 (NUL)" },
      { path: "body.tags.1", message: "must not contain an unpaired UTF-16 surrogate" },
      { path: "body.name", message: "must not contain U+0000 (NUL)" },
    ]);
  });

  it("takes custom attribute values 5 levels deep and refuses 6", () => {
    expect(unstorableFields({ custom_attributes: { a: nest(5) } }, "body")).toEqual([]);
    expect(unstorableFields({ custom_attributes: { a: nest(6) } }, "body")).toEqual([
      {
        path: "body.custom_attributes.a.next.next.next.next.next",
        message: "custom attribute values nest at most 5 levels",
      },
    ]);
  });

  it("refuses any body deeper than the limit without recursion", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const [problem] = unstorableFields({ other: deep }, "body");
    expect(problem?.message).toBe(`nests deeper than ${BODY_MAX_DEPTH} levels`);
  });
});
