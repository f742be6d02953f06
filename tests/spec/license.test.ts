/** The documents we publish carry the license of the packages we publish (the SDK and the verifier). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import YAML from "yaml";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("the documents' license", () => {
  it.each(["openapi.yaml", "openapi.3.0.yaml", "swagger.2.0.yaml"])("of %s is the packages'", (file) => {
    const licenses = ["sdk", "webhook-verifier"].map((name) => JSON.parse(read(`${name}/package.json`)).license);
    const doc = YAML.parse(read(`spec/generated/${file}`)) as { info: { license: { name: string } } };
    expect(licenses).toEqual(["MIT", "MIT"]);
    expect(doc.info.license.name).toBe(licenses[0]);
  });
});
