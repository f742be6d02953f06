/**
 * The published YAML documents read the same under YAML 1.2 and YAML 1.1 readers: a 1.1 reader (PyYAML, and the many
 * tools built on 1.1) takes an unquoted `2026-11-01T09:30:00Z` for a date, `on` for true and `0755` for a number.
 * Compared whole: the `yaml` library in each mode, and PyYAML's safe loader, against the document as a 1.2 reader
 * takes it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const DOCUMENTS = ["spec/generated/openapi.yaml", "spec/generated/openapi.3.0.yaml", "spec/generated/swagger.2.0.yaml"];

/** PyYAML is there (CI installs Debian's python3-yaml); on a machine without it that test is skipped, in CI it fails. */
const hasPyyaml = (() => {
  try {
    execFileSync("python3", ["-c", "import yaml"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPyyaml && !process.env.CI) {
  console.warn("PyYAML not found: its YAML 1.1 check is skipped (apt-get install python3-yaml, or pip install pyyaml)");
}

function pyyaml(file: string): unknown {
  const script = "import json, sys, yaml\njson.dump(yaml.safe_load(open(sys.argv[1], encoding='utf-8')), sys.stdout)";
  return JSON.parse(execFileSync("python3", ["-c", script, file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
}

describe.each(DOCUMENTS)("%s under YAML 1.1 and 1.2 readers", (file) => {
  const text = readFileSync(file, "utf8");
  const asJson = JSON.parse(JSON.stringify(parse(text)));

  it("holds no value that a 1.1 reader types otherwise (a date, a boolean, a number from a string)", () => {
    expect(parse(text, { version: "1.1" })).toEqual(asJson);
  });

  it.skipIf(!hasPyyaml && !process.env.CI)("loads in PyYAML's safe loader to the same document", () => {
    expect(pyyaml(file)).toEqual(asJson);
  });

  it("quotes the timestamps of its examples", () => {
    expect(text).toMatch(/: "20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
    expect(text).not.toMatch(/: 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ\s*$/m);
  });
});
