import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import catalog from "../../spec/error-catalog.json" with { type: "json" };

describe("the error catalog", () => {
  it("holds exactly the contract's ErrorCode values, each with a status and a title", () => {
    const doc = YAML.parse(readFileSync(new URL("../../spec/generated/openapi.yaml", import.meta.url), "utf8")) as {
      components: { schemas: { ErrorCode: { enum: string[] } } };
    };
    expect(Object.keys(catalog).sort()).toEqual([...doc.components.schemas.ErrorCode.enum].sort());
    for (const entry of Object.values(catalog)) {
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.title.length).toBeGreaterThan(0);
    }
  });
});

describe("the documents' examples", () => {
  it.each(["openapi.yaml", "openapi.3.0.yaml"])(
    "give every required parameter of %s an example, and no optional one",
    (file) => {
      type Schema = { example?: unknown; examples?: unknown[] };
      type Parameter = {
        $ref?: string;
        name: string;
        in: string;
        required?: boolean;
        example?: unknown;
        schema?: Schema;
      };
      const doc = YAML.parse(readFileSync(new URL(`../../spec/generated/${file}`, import.meta.url), "utf8")) as {
        paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
        components: { parameters: Record<string, Parameter> };
      };
      const missing = new Set<string>();
      const prefilled = new Set<string>();
      for (const item of Object.values(doc.paths)) {
        for (const operation of Object.values(item)) {
          for (const raw of operation.parameters ?? []) {
            const parameter = raw.$ref ? doc.components.parameters[raw.$ref.split("/").pop() as string] : raw;
            const name = `${raw.in ?? parameter?.in}:${parameter?.name}`;
            const example = parameter?.example ?? parameter?.schema?.example ?? parameter?.schema?.examples;
            if (parameter?.required && example === undefined) missing.add(name);
            if (!parameter?.required && example !== undefined) prefilled.add(name);
          }
        }
      }
      expect({ missing: [...missing], prefilled: [...prefilled] }).toEqual({ missing: [], prefilled: [] });
    },
  );
});
