/**
 * Hostile input, generated from the contract: every string field of every request body and every string query
 * parameter gets values that JSON and RFC 3339 allow but PostgreSQL cannot store (U+0000, an unpaired surrogate, a
 * date-time in year 0000 or with an offset beyond ±15:59). Each must answer 400 problem+json naming the field;
 * nothing may answer 5xx. A field added to the contract is covered without touching this file.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { DATE_TIME_RULE } from "../../server/src/http/error-handler.ts";
import { json, registerAndVerify, type SignedIn, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  additionalProperties?: unknown;
};
type Operation = {
  operationId: string;
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
  parameters?: (Schema & { name?: string; in?: string; schema?: Schema })[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  "x-test-mode-only"?: boolean;
};

const doc = YAML.parse(readFileSync(new URL("../../spec/generated/openapi.yaml", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Schema>>;
};

function resolve<T extends Schema>(schema: T): T {
  if (!schema.$ref) return schema;
  const [, , group, name] = schema.$ref.split("/");
  return resolve((doc.components[group as string]?.[name as string] ?? {}) as T);
}

interface StringField {
  path: string[];
  format?: string;
  /** Inside a batch's item, which is checked alone: it may fail alone (`result: failed`) in a 200. */
  perItem?: boolean;
}

/**
 * An array item a batch checks on its own: its schema, or any object (`anyOf: [Item, {}]`), so that the contract
 * check lets it through to fail alone.
 */
function checkedAlone(items: Schema): boolean {
  const branches = resolve(items).anyOf ?? [];
  return branches.some((branch) => branch.type === "object" && !branch.properties && branch.additionalProperties);
}

/** Every string leaf of a schema, as a path of property names (`[]` for an array item), with its format. */
function stringFields(schema: Schema, path: string[] = [], depth = 0, perItem = false): StringField[] {
  const resolved = resolve(schema);
  if (depth > 4) return [];
  // A schema's own shape and its composition both count (LeadCreate has properties and an anyOf of required lists).
  const parts = [...(resolved.allOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])];
  const composed = parts.flatMap((part) => stringFields(part, path, depth + 1, perItem));
  const types = Array.isArray(resolved.type) ? resolved.type : [resolved.type];
  if (types.includes("string")) {
    return [
      { path, ...(resolved.format ? { format: resolved.format } : {}), ...(perItem && { perItem }) },
      ...composed,
    ];
  }
  if (types.includes("array") && resolved.items) {
    const alone = perItem || checkedAlone(resolved.items);
    return [...stringFields(resolved.items, [...path, "[]"], depth + 1, alone), ...composed];
  }
  const own = Object.entries(resolved.properties ?? {}).flatMap(([name, property]) =>
    stringFields(property, [...path, name], depth + 1, perItem),
  );
  return [...own, ...composed];
}

/** A copy of `body` with the value at `path` set (arrays get it as their one item). */
function withValue(body: unknown, path: string[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (head === "[]") return [withValue(undefined, rest, value)];
  const object = typeof body === "object" && body !== null && !Array.isArray(body) ? body : {};
  return { ...object, [head]: withValue((object as Record<string, unknown>)[head], rest, value) };
}

const HOSTILE_STRINGS = [
  { label: "U+0000", value: "a\u0000b" },
  { label: "an unpaired surrogate", value: "a\ud800b" },
];
const HOSTILE_DATE_TIMES = [
  { label: "year 0000", value: "0000-06-01T00:00:00Z" },
  { label: "an offset beyond ±15:59", value: "2026-01-01T00:00:00+16:00" },
  { label: "February 30th", value: "2026-02-30T00:00:00Z" },
];

/**
 * Query texts that JavaScript's `Number()` reads as numbers but that are not numbers as JSON (and the contract's
 * independent readers) write them; as sent on the wire (`+` in a query is a space).
 */
const HOSTILE_NUMBERS = [
  { label: "Infinity", value: "Infinity" },
  { label: "-Infinity", value: "-Infinity" },
  { label: "1e400", value: "1e400" },
  { label: "hexadecimal 0x10", value: "0x10" },
  { label: "binary 0b11", value: "0b11" },
  { label: "a plus sign (%2B5)", value: "%2B5" },
  { label: "a plus sign as a space (+5)", value: "+5" },
  { label: "a leading space", value: "%205" },
  { label: "a leading zero", value: "05" },
  // JSON Schema's integer is a value; a query writes an integer in decimal digits, as every client does (String(n)).
  { label: "an exponent (1e1)", value: "1e1" },
  { label: "a fraction of zero (1.0)", value: "1.0" },
  { label: "a negative zero (-0)", value: "-0" },
];

/** Values the contract allows, in forms some readers refuse: each must not be refused as its field. */
const ALLOWED_FORMS = {
  "date-time": [
    { label: "a leap second", value: "2016-12-31T23:59:60Z" },
    { label: "a leap second at a negative offset", value: "2016-12-31T18:59:60-05:00" },
  ],
  // The parameter's minimum: a number past it (a position after the newest event) is refused for what it means.
  number: [{ label: "a plain decimal", value: "its minimum" }],
};

/** Operations whose body holds no string at all (numbers and booleans only). */
const BODIES_WITHOUT_STRINGS = ["ApiKeys_rotate"];

interface Case {
  name: string;
  method: string;
  path: string;
  query?: string;
  body?: unknown;
  field: string;
  session: boolean;
  perItem?: boolean;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.operationId) continue;
      const path = template.replace(/\{[^}]+\}/g, "x_0");
      const session = (operation.security ?? []).some((requirement) => "SessionCookie" in requirement);
      const content = operation.requestBody?.content["application/json"];
      if (content) {
        for (const field of stringFields(content.schema)) {
          const values = field.format === "date-time" ? [...HOSTILE_STRINGS, ...HOSTILE_DATE_TIMES] : HOSTILE_STRINGS;
          for (const { label, value } of values) {
            out.push({
              name: `${operation.operationId} body.${field.path.join(".")} with ${label}`,
              method: method.toUpperCase(),
              path,
              body: withValue(content.example ?? {}, field.path, value),
              field: `body.${field.path.map((part) => (part === "[]" ? "0" : part)).join(".")}`,
              session,
              ...(field.perItem && { perItem: true }),
            });
          }
        }
      }
      for (const raw of operation.parameters ?? []) {
        const parameter = resolve(raw as Schema) as Operation["parameters"] extends (infer P)[] | undefined ? P : never;
        if (parameter.in !== "query" || !parameter.schema) continue;
        if (isNumeric(parameter.schema)) {
          for (const { label, value } of HOSTILE_NUMBERS) {
            out.push({
              name: `${operation.operationId} ?${parameter.name} with ${label}`,
              method: method.toUpperCase(),
              path: examplePath(template, operation),
              query: `${parameter.name}=${value}`,
              field: `query.${parameter.name}`,
              session,
            });
          }
        }
        for (const field of stringFields(parameter.schema)) {
          // A URL carries UTF-8 bytes: an unpaired surrogate cannot be written in one (invalid bytes decode to U+FFFD).
          const strings = HOSTILE_STRINGS.filter((item) => item.label === "U+0000");
          const values = field.format === "date-time" ? [...strings, ...HOSTILE_DATE_TIMES] : strings;
          for (const { label, value } of values) {
            out.push({
              name: `${operation.operationId} ?${parameter.name} with ${label}`,
              method: method.toUpperCase(),
              path,
              query: `${parameter.name}=${encodeURIComponent(value)}`,
              field: `query.${parameter.name}`,
              session,
            });
          }
        }
      }
    }
  }
  return out;
}

/** The operation's path with each parameter's example (a valid id), so that the path itself passes the check. */
function examplePath(template: string, operation: Operation): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = (operation.parameters ?? [])
      .map((raw) => resolve(raw as Schema) as { name?: string; example?: unknown })
      .find((item) => item.name === name);
    return typeof parameter?.example === "string" ? parameter.example : "x_0";
  });
}

function isNumeric(schema: Schema): boolean {
  const types = [resolve(schema).type].flat();
  return types.includes("integer") || types.includes("number");
}

/** Query parameters in forms the contract allows: a leap second, a plain decimal. */
function allowedCases(): Case[] {
  const out: Case[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.operationId) continue;
      const session = (operation.security ?? []).some((requirement) => "SessionCookie" in requirement);
      for (const raw of operation.parameters ?? []) {
        const parameter = resolve(raw as Schema) as Operation["parameters"] extends (infer P)[] | undefined ? P : never;
        if (parameter.in !== "query" || !parameter.schema) continue;
        const schema = resolve(parameter.schema);
        const forms = isNumeric(schema)
          ? ALLOWED_FORMS.number
          : stringFields(schema).some((field) => field.format === "date-time")
            ? ALLOWED_FORMS["date-time"]
            : [];
        for (const { label, value: form } of forms) {
          const value = form === "its minimum" ? String((schema as { minimum?: number }).minimum ?? 1) : form;
          out.push({
            name: `${operation.operationId} ?${parameter.name} with ${label}`,
            method: method.toUpperCase(),
            path: examplePath(template, operation),
            query: `${parameter.name}=${encodeURIComponent(value)}`,
            field: `query.${parameter.name}`,
            session,
          });
        }
      }
    }
  }
  return out;
}

/** The operations only a test key gets past authentication for (a live one is a 403 `TEST_MODE_ONLY`). */
const TEST_MODE_ONLY = new Set(
  Object.values(doc.paths).flatMap((item) =>
    Object.values(item)
      .filter((operation) => operation["x-test-mode-only"] === true)
      .map((operation) => operation.operationId),
  ),
);

describe("hostile input from the contract", () => {
  const service = useTestService({ TRUST_PROXY: "loopback" });
  let apiKey: string;
  let testKey: string;
  let account: SignedIn;
  beforeAll(async () => {
    // Every scope: authentication and scope come before the contract check (api-router.ts).
    apiKey = (await workspaceWithKey(service(), ALL_SCOPES)).key;
    testKey = (await workspaceWithKey(service(), ALL_SCOPES, "test")).key;
    const email = uniqueEmail("hostile");
    await registerAndVerify(service(), email);
    account = await signIn(service(), email);
  });

  const table = cases();
  it("covers every operation with a body and the list filters", () => {
    expect(table.length).toBeGreaterThan(150);
    // Every operation whose body has a string field is in the table (a schema shape the walker misses would drop
    // an operation silently, as an anyOf once did).
    const withBodies = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).filter((operation) => operation.requestBody?.content["application/json"]),
    );
    const covered = new Set(table.map((item) => item.name.split(" ")[0]));
    const missing = withBodies
      .map((operation) => operation.operationId)
      .filter((id) => !covered.has(id) && !BODIES_WITHOUT_STRINGS.includes(id));
    expect(missing).toEqual([]);
    expect(table.some((item) => item.name.startsWith("Leads_create body.name"))).toBe(true);
    for (const field of ["body.email", "body.external_id", "query.email", "query.created_after", "body.due_at"])
      expect(table.some((item) => item.field === field)).toBe(true);
  });

  const send = (item: Case) =>
    service().fetch(`${item.path}${item.query ? `?${item.query}` : ""}`, {
      method: item.method,
      headers: {
        "content-type": "application/json",
        ...(item.session
          ? { cookie: account.cookie, "x-csrf-token": account.csrf }
          : { authorization: `Bearer ${TEST_MODE_ONLY.has(item.name.split(" ")[0] ?? "") ? testKey : apiKey}` }),
      },
      ...(item.body === undefined ? {} : { body: JSON.stringify(item.body) }),
    });

  it.each(table)("$name answers 400 naming the field", async (item) => {
    const response = await send(item);
    const text = await response.text();
    type Problem = { code: string; errors?: { path: string; message: string }[] };
    let problem: Problem;
    if (item.perItem && response.status === 200) {
      // A batch's item fails alone, with the same problem as a request of its own.
      const [result] = (JSON.parse(text) as { data: { result: string; problem: Problem }[] }).data;
      expect(result?.result, text).toBe("failed");
      problem = result?.problem as Problem;
    } else {
      expect(response.status, text).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      problem = JSON.parse(text) as Problem;
    }
    expect(problem.code).toBe("VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toContain(item.field);
    // A date-time out of range is told the rule, once, in a sentence: never the validator's "must match format".
    if (HOSTILE_DATE_TIMES.some(({ label }) => item.name.endsWith(`with ${label}`))) {
      expect(problem.errors?.filter((error) => error.path === item.field).map((error) => error.message)).toEqual([
        DATE_TIME_RULE,
      ]);
    }
  });

  const allowed = allowedCases();
  it("covers every numeric and date-time query parameter", () => {
    for (const field of ["query.limit", "query.created_after", "query.since"])
      expect(allowed.some((item) => item.field === field)).toBe(true);
    for (const field of ["query.limit", "query.after_sequence"])
      expect(table.some((item) => item.field === field && item.name.endsWith("with 1e400"))).toBe(true);
  });

  it.each(allowed)("$name is taken as the contract allows", async (item) => {
    const response = await send(item);
    const text = await response.text();
    expect(response.status, text).toBeLessThan(500);
    if (response.status === 400) {
      const problem = JSON.parse(text) as { errors?: { path: string }[] };
      expect(problem.errors?.map((error) => error.path) ?? []).not.toContain(item.field);
    }
  });

  const unknownParameter = Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([, operation]) => operation.operationId)
      .map(([method, operation]) => ({
        name: operation.operationId,
        method: method.toUpperCase(),
        path: examplePath(template, operation),
        query: "not_a_parameter=1",
        field: "query.not_a_parameter",
        session: (operation.security ?? []).some((requirement) => "SessionCookie" in requirement),
        documented: Object.keys(operation.responses ?? {}),
      })),
  );
  it.each(unknownParameter)("$name answers an unknown query parameter 400, as it documents", async (item) => {
    expect(item.documented).toContain("400");
    const response = await send(item);
    const text = await response.text();
    expect(response.status, text).toBe(400);
    expect((JSON.parse(text) as { errors?: { path: string }[] }).errors?.map((error) => error.path)).toContain(
      item.field,
    );
  });

  it("stores a leap second as the second after 23:59:59, as PostgreSQL does", async () => {
    const key = (await workspaceWithKey(service(), ["tickets:write", "tickets:read"])).key;
    const created = await service().fetch(
      "/v1/tickets",
      json({ subject: "leap", due_at: "2016-12-31T23:59:60Z" }, { authorization: `Bearer ${key}` }),
    );
    expect(created.status, await created.clone().text()).toBe(201);
    expect(((await created.json()) as { due_at: string }).due_at).toBe("2017-01-01T00:00:00.000Z");
  });

  it("refuses custom_attributes nested 10,000 levels with a 400, not a stack overflow", async () => {
    const body = `{"name":"deep","custom_attributes":{"a":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`;
    const response = await service().fetch("/v1/leads", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body,
    });
    expect(response.status, await response.clone().text()).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe("VALIDATION_FAILED");
  });

  it("refuses custom_attributes nested past the contract's 5 levels, and takes 5", async () => {
    const nest = (levels: number): unknown => (levels === 0 ? 1 : { next: nest(levels - 1) });
    const key = (await workspaceWithKey(service(), ["leads:write"])).key;
    const post = (value: unknown) =>
      service().fetch(
        "/v1/leads",
        json({ name: "nested", custom_attributes: { a: value } }, { authorization: `Bearer ${key}` }),
      );
    expect((await post(nest(5))).status).toBe(201);
    const refused = await post(nest(6));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { path: string }[] }).errors[0]?.path).toMatch(
      /^body\.custom_attributes\.a/,
    );
  });
});
