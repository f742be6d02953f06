/**
 * Requests made from the contract's rules: for every operation, each rule of its body's top-level fields and of its
 * parameters gets values on both sides of it (a length at the limit and one past it, each format's hard cases, a
 * value of another type, a required field left out, an unknown one added). Whether a value is valid is not decided
 * here: each document is asked (contract-judges.ts), so that the three documents and the server are compared.
 *
 * `seededStrings` adds values a seeded generator draws (printable ASCII and beyond, lengths around each limit): a run
 * prints its seed, and `SCHEMA_RULES_SEED=<seed>` repeats it.
 */
import { type Json, resolve } from "./contract-judges.ts";

export interface Operation {
  id: string;
  method: string;
  /** The path template, `/v1/leads/{lead_id}`. */
  template: string;
  /** The security scheme that admits a caller (`ApiKeyBearer`, `SessionCookie`), or none. */
  scheme: string | undefined;
  /** The example body (3.1), or none for an operation without one. */
  example: Json | undefined;
}

export interface RuleCase {
  name: string;
  /** The field the case is about, as the server's errors name it (`body.email`, `query.limit`, `path.lead_id`). */
  field: string;
  body?: unknown;
  query?: string;
  /** Path parameters whose value the case sets (the others are the examples'). */
  path?: Record<string, string>;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

export function operationsOf(doc: Json): Operation[] {
  return Object.entries(doc.paths as Json).flatMap(([template, item]) =>
    METHODS.filter((method) => (item as Json)[method]?.operationId).map((method) => {
      const operation = (item as Json)[method] as Json;
      return {
        id: operation.operationId as string,
        method,
        template,
        scheme: Object.keys(operation.security?.[0] ?? {})[0],
        example: operation.requestBody?.content["application/json"]?.example as Json | undefined,
      };
    }),
  );
}

/** `n` characters, all different in every run of 36: no value of one repeated character. */
const varied = (n: number) =>
  Array.from({ length: Math.max(0, n) }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789"[i % 36]).join("");

const FORMAT_VALUES: Record<string, string[]> = {
  email: ["ada@example.com", "o'brien+tag@mail.example.co.uk", "a..b@example.com", ".a@example.com", "a@b", "a@b@c.d"],
  uri: ["https://1.1.1.1:8443/a%7Cb?x=1", "https://1.1.1.1/a|b", "https://1.1.1.1/é", "not a uri"],
  "date-time": [
    "2016-12-31T23:59:60Z",
    "2020-02-29T12:00:00.123456+15:59",
    "2026-02-30T00:00:00Z",
    "0000-06-01T00:00:00Z",
    "2026-01-01T00:00:00+16:00",
    "2026-01-01T00:00:00+0100",
    "2026-01-01",
  ],
};

/** A value of the schema's kind that is not the schema's type. */
const otherType = (schema: Json): unknown => ([schema.type].flat().includes("string") ? 12345 : "x");

/** The non-null branch of `T | null` (3.1: `anyOf: [T, {type: null}]`), and whether null is in it. */
function nonNull(doc: Json, node: Json): Json {
  const branches = Array.isArray(node.anyOf) ? (node.anyOf as Json[]) : [];
  const [only] = branches.filter((branch) => branch.type !== "null");
  return resolve(doc, branches.length === 2 && only ? only : node);
}

/** Values around each rule of one schema (a property's, or a parameter's). */
function valuesAround(doc: Json, raw: Json, example: unknown): unknown[] {
  const schema = nonNull(doc, resolve(doc, raw));
  const values: unknown[] = [null, otherType(schema)];
  if (example !== undefined) values.push(example);
  if (typeof schema.format === "string") values.push(...(FORMAT_VALUES[schema.format] ?? []));
  if (Array.isArray(schema.enum)) values.push(...schema.enum, "not_a_value");
  if (typeof schema.pattern === "string") values.push("!", "");
  if (typeof schema.minLength === "number") values.push(varied(schema.minLength - 1), varied(schema.minLength));
  if (typeof schema.maxLength === "number") values.push(varied(schema.maxLength), varied(schema.maxLength + 1));
  for (const bound of [schema.minimum, schema.maximum]) {
    if (typeof bound === "number") values.push(bound - 1, bound, bound + 1);
  }
  if ([schema.type].flat().includes("integer")) values.push(1.5);
  const item = Array.isArray(example) ? example[0] : undefined;
  if (typeof schema.maxItems === "number" && item !== undefined) {
    values.push(
      Array.from({ length: schema.maxItems }, (_, i) => (typeof item === "string" ? `${item}${i}` : item)),
      Array.from({ length: schema.maxItems + 1 }, (_, i) => (typeof item === "string" ? `${item}${i}` : item)),
    );
  }
  if (typeof schema.minItems === "number" && schema.minItems > 0) values.push([]);
  if (typeof schema.maxProperties === "number") {
    const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
    values.push(entries(schema.maxProperties), entries(schema.maxProperties + 1));
  }
  // A depth said by structure (a custom attribute's value): at it, and one level past it.
  const depth = resolve(doc, (schema.additionalProperties as Json | undefined) ?? {})["x-max-depth"];
  if (typeof depth === "number") {
    const nest = (levels: number): unknown => (levels === 0 ? 1 : { next: nest(levels - 1) });
    values.push({ a: nest(depth) }, { a: nest(depth + 1) }, { a: [[["x", 1, true, null]]] });
  }
  return values;
}

/** The cases of an operation's body: each top-level field's values, the required ones left out, an unknown one. */
export function bodyCases(doc: Json, operation: Operation, schema: Json): RuleCase[] {
  const example = operation.example;
  if (!example) return [];
  const resolved = resolve(doc, schema);
  const cases: RuleCase[] = [{ name: "the example", field: "body", body: example }];
  for (const [field, property] of Object.entries((resolved.properties ?? {}) as Json)) {
    for (const value of valuesAround(doc, property as Json, example[field])) {
      cases.push({ name: `${field}: ${short(value)}`, field: `body.${field}`, body: { ...example, [field]: value } });
    }
    if ((resolved.required ?? []).includes(field)) {
      const { [field]: _left, ...rest } = example;
      cases.push({ name: `without ${field}`, field: `body.${field}`, body: rest });
    }
  }
  cases.push({
    name: "an unknown field",
    field: "body.not_in_the_contract",
    body: { ...example, not_in_the_contract: 1 },
  });
  // "At least one of": the example without any of the fields one of which it needs.
  const lists = ((resolved.anyOf ?? []) as Json[]).filter((branch) => Array.isArray(branch.required));
  if (lists.length > 0) {
    const names = lists.flatMap((branch) => branch.required as string[]);
    const rest = Object.fromEntries(Object.entries(example).filter(([key]) => !names.includes(key)));
    cases.push(
      { name: `none of ${names.join(", ")}`, field: "body", body: rest },
      { name: "{}", field: "body", body: {} },
    );
  }
  return cases;
}

/** The cases of an operation's query and path parameters: values around each rule, and a parameter it does not list. */
export function parameterCases(doc: Json, operation: Operation): RuleCase[] {
  const parameters = ((doc.paths[operation.template][operation.method].parameters ?? []) as Json[]).map((p) =>
    resolve(doc, p),
  );
  const cases: RuleCase[] = [
    { name: "an unlisted query parameter", field: "query.not_a_parameter", query: "not_a_parameter=1" },
  ];
  for (const parameter of parameters.filter((p) => p.in === "query" || p.in === "path")) {
    const schema = resolve(doc, parameter.schema as Json);
    const texts = new Set<string>(
      valuesAround(doc, schema, parameter.example)
        .filter((value) => value !== null && typeof value !== "object")
        .map(String),
    );
    if ([schema.type].flat().includes("integer"))
      for (const text of ["abc", "1e1", "1.0", "01", "-0", "0x10"]) texts.add(text);
    for (const text of texts) {
      if (text === "") continue; // an empty segment is another path; an empty query value, its own 400 (below)
      const field = `${parameter.in === "path" ? "path" : "query"}.${parameter.name}`;
      const name = `${field}=${short(text)}`;
      if (parameter.in === "path") cases.push({ name, field, path: { [parameter.name]: text } });
      else cases.push({ name, field, query: `${parameter.name}=${encodeURIComponent(text)}` });
    }
  }
  return cases;
}

/** Values a seeded generator draws for every string and integer field of a body: reproducible from the seed. */
export function seededCases(doc: Json, operation: Operation, schema: Json, random: () => number): RuleCase[] {
  const example = operation.example;
  if (!example) return [];
  const pool = "aZ09 _-.@:/%+~!é€😀\t'\"\\<>{}[]|";
  const cases: RuleCase[] = [];
  for (const [field, raw] of Object.entries((resolve(doc, schema).properties ?? {}) as Json)) {
    const property = nonNull(doc, resolve(doc, raw as Json));
    const types = [property.type].flat();
    for (let i = 0; i < 3; i++) {
      let value: unknown;
      if (types.includes("string")) {
        const limit = (property.maxLength as number | undefined) ?? 40;
        const length = Math.floor(random() * (limit + 3));
        value = Array.from({ length }, () => pool[Math.floor(random() * pool.length)]).join("");
      } else if (types.includes("integer")) {
        const [low, high] = [
          (property.minimum as number | undefined) ?? -5,
          (property.maximum as number | undefined) ?? 1000,
        ];
        value = Math.floor(low - 2 + random() * (high - low + 5));
      } else continue;
      cases.push({
        name: `${field}: seeded ${short(value)}`,
        field: `body.${field}`,
        body: { ...example, [field]: value },
      });
    }
  }
  return cases;
}

/** mulberry32: a small seeded generator, so that a run is repeated from its printed seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…(${text.length})` : text;
}
