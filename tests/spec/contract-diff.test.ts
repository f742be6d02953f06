/**
 * The published v1.0 contract is kept: the generated document has no unaccepted breaking change against
 * spec/releases/1.0.0, and the check does fail on breaks planted in a copy of the current document.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { acceptedChanges, breakingChanges, latestRelease } from "../../spec/scripts/contract-diff.ts";

// biome-ignore lint/suspicious/noExplicitAny: the planted breaks reach deep into a parsed YAML document.
type Doc = Record<string, any>;
const current = (): Doc =>
  parse(readFileSync(new URL("../../spec/generated/openapi.yaml", import.meta.url), "utf8")) as Doc;

describe("the published contract", () => {
  it("is kept by the generated document", () => {
    expect(latestRelease().version).toBe("1.0.0");
    expect(breakingChanges(latestRelease().doc, current(), acceptedChanges())).toEqual([]);
  });

  it("passes `npm run contract:diff`", () => {
    const output = execFileSync("npm", ["run", "--silent", "contract:diff"], { encoding: "utf8" });
    expect(output).toContain("no breaking change against the published 1.0.0 contract");
  });

  const planted: { name: string; plant(doc: Doc): void }[] = [
    { name: "an operation removed", plant: (doc) => void delete doc.paths["/v1/leads/{lead_id}"].delete },
    {
      name: "an optional request field made required",
      plant: (doc) => void doc.components.schemas.TicketCreate.required.push("description"),
    },
    { name: "an enum value removed", plant: (doc) => void doc.components.schemas.LeadStatus.enum.pop() },
    {
      name: "a response field's type changed",
      plant: (doc) => {
        doc.components.schemas.Lead.properties.tags = { type: "string" };
      },
    },
  ];

  it.each(planted)("fails on $name", ({ plant }) => {
    const changed = current();
    plant(changed);
    expect(breakingChanges(current(), changed, acceptedChanges()).length).toBeGreaterThan(0);
  });
});
