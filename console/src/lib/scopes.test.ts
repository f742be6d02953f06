import { describe, expect, it } from "vitest";
import { SCOPES } from "../generated/enums.ts";
import { describeScope, groupScopes, scopesOf } from "./scopes.ts";

describe("groupScopes", () => {
  it("groups every scope of the contract by resource, in the contract's order", () => {
    const groups = groupScopes();
    expect(groups.map((group) => group.label)).toEqual([
      "Leads",
      "Conversations",
      "Tickets",
      "Webhooks",
      "Events",
      "Attributes",
      "Test data",
    ]);
    expect(groups.flatMap((group) => group.scopes)).toEqual([...SCOPES]);
  });

  it("offers the reset of the test data to test keys only", () => {
    expect(scopesOf("live")).not.toContain("test_data:write");
    expect(scopesOf("test")).toEqual([...SCOPES]);
  });

  it.each([
    { given: ["events:read"] as const, want: [{ resource: "events", label: "Events", scopes: ["events:read"] }] },
    {
      given: ["tickets:write", "leads:read", "tickets:read"] as const,
      want: [
        { resource: "tickets", label: "Tickets", scopes: ["tickets:write", "tickets:read"] },
        { resource: "leads", label: "Leads", scopes: ["leads:read"] },
      ],
    },
    { given: [] as const, want: [] },
  ])("groups $given", ({ given, want }) => {
    expect(groupScopes(given)).toEqual(want);
  });
});

describe("describeScope", () => {
  it.each([
    { given: "leads:read", want: "Read leads" },
    { given: "tickets:write", want: "Create and change tickets" },
    { given: "test_data:write", want: "Reset the test data" },
  ] as const)("describes $given", ({ given, want }) => {
    expect(describeScope(given)).toBe(want);
  });
});
