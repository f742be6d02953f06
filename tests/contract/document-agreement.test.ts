/**
 * The 3.1 and 3.0 documents accept exactly the same requests and answers, and so does the server. For every `/v1`
 * operation with a body, a table of bodies made from its schema (the example; each field null, of the wrong type, or
 * left out when required; an unknown field; not an object) goes through Ajv (outside the server's path: Ajv 2020-12
 * for the 3.1 document, Ajv draft-07 with OpenAPI's `nullable` for the 3.0 one) and through the server. The three
 * verdicts must agree: the server refuses a body (400 `VALIDATION_FAILED` naming a body field) exactly when both
 * documents do. Every answer the server gave is then checked against the operation's answer in both documents.
 */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

type Json = Record<string, unknown>;
const read = (file: string) =>
  YAML.parse(readFileSync(new URL(`../../spec/generated/${file}`, import.meta.url), "utf8")) as Json;
const v31 = read("openapi.yaml");
const v30 = read("openapi.3.0.yaml");
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A validator of `#/…` schemas of one document (its components registered under an id of their own). */
function validatorOf(doc: Json, ajv: Ajv | Ajv2020) {
  addFormats.default(ajv);
  const id = `https://contract.invalid/${String(doc.openapi)}`;
  ajv.addSchema({ $id: id, components: doc.components });
  const cache = new Map<string, ValidateFunction>();
  return (schema: Json, value: unknown): boolean => {
    const key = JSON.stringify(schema);
    // Refs inside the operation's schema point at the document's components.
    const validate =
      cache.get(key) ?? ajv.compile(JSON.parse(key.replaceAll('"#/components/', `"${id}#/components/`)) as Json);
    cache.set(key, validate);
    return validate(value) as boolean;
  };
}
const valid31 = validatorOf(v31, new Ajv2020({ strict: false, allErrors: false }));
const valid30 = validatorOf(v30, new Ajv({ strict: false, allErrors: false, discriminator: true }));

const resolve = (doc: Json, node: Json): Json =>
  typeof node.$ref === "string"
    ? resolve(doc, ((doc.components as Json).schemas as Json)[node.$ref.split("/").pop() as string] as Json)
    : node;

interface Operation {
  method: string;
  path: string;
  id: string;
  body: (doc: Json) => Json;
  answer: (doc: Json, status: number) => Json | undefined;
  example: Json;
  properties: string[];
  required: string[];
}

/** Every `/v1` operation with a JSON body, in the 3.1 document's order. */
function operationsWithBodies(): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(v31.paths as Json)) {
    if (!path.startsWith("/v1/")) continue;
    for (const [method, raw] of Object.entries(item as Json)) {
      const operation = raw as Json;
      const media = ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.["application/json"];
      if (!isObject(media)) continue;
      const at = (doc: Json) => ((doc.paths as Json)[path] as Json)[method] as Json;
      const schema = resolve(v31, media.schema as Json);
      found.push({
        method: method.toUpperCase(),
        path,
        id: String(operation.operationId),
        body: (doc) => (((at(doc).requestBody as Json).content as Json)["application/json"] as Json).schema as Json,
        answer: (doc, status) => {
          const responses = at(doc).responses as Json;
          const response = (responses[String(status)] ?? responses.default) as Json | undefined;
          const content = response?.content as Json | undefined;
          return ((content?.["application/json"] ?? content?.["application/problem+json"]) as Json | undefined)
            ?.schema as Json | undefined;
        },
        example: media.example as Json,
        properties: Object.keys((schema.properties as Json | undefined) ?? {}),
        required: (schema.required as string[] | undefined) ?? [],
      });
    }
  }
  return found;
}

/** The bodies tried on an operation: its example, and one change of it per line. */
function bodiesOf(operation: Operation): [string, unknown][] {
  const { example } = operation;
  const bodies: [string, unknown][] = [["the example", example]];
  for (const field of operation.properties) {
    bodies.push([`${field}: null`, { ...example, [field]: null }]);
    bodies.push([`${field}: a number`, { ...example, [field]: 12345 }]);
    bodies.push([`${field}: an object`, { ...example, [field]: { a: 1 } }]);
    if (operation.required.includes(field)) {
      const { [field]: _left, ...rest } = example;
      bodies.push([`without ${field}`, rest]);
    }
  }
  bodies.push(["an unknown field", { ...example, not_in_the_contract: 1 }]);
  bodies.push(["an array", [example]]);
  return bodies;
}

/** A path of the operation with the example ids of its parameters. */
function pathOf(operation: Operation): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const prefix = { lead_id: "lead", conversation_id: "conv", ticket_id: "tkt", webhook_id: "wh" }[name] ?? "x";
    return `${prefix}_01JD3Z6Q4W2YB7K8N9P0R5S6T7`;
  });
}

describe("the 3.1 and 3.0 documents and the server agree on every body", () => {
  const service = useTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", API_RATE_LIMIT_PER_MINUTE: "1000000" });
  let key: string;
  beforeAll(async () => {
    key = (await workspaceWithKey(service(), ALL_SCOPES)).key;
  });
  const operations = operationsWithBodies();

  it("finds the operations to try", () => {
    expect(operations.map((operation) => operation.id)).toEqual(
      expect.arrayContaining([
        "Leads_create",
        "Leads_update",
        "Leads_batchUpsert",
        "Tickets_update",
        "Webhooks_create",
      ]),
    );
  });

  it.each(operations.map((operation) => [operation.id, operation] as const))("%s", async (_id, operation) => {
    const disagreements: string[] = [];
    for (const [name, body] of bodiesOf(operation)) {
      const in31 = valid31(operation.body(v31), body);
      const in30 = valid30(operation.body(v30), body);
      const response = await service().fetch(pathOf(operation), {
        method: operation.method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const answer = text ? (JSON.parse(text) as Json) : undefined;
      const refused =
        response.status === 400 &&
        answer?.code === "VALIDATION_FAILED" &&
        ((answer.errors as { path: string }[] | undefined) ?? []).some((error) => error.path.startsWith("body"));
      if (in31 !== in30 || in31 === refused) {
        disagreements.push(`${name}: 3.1 ${in31}, 3.0 ${in30}, server ${response.status} ${text.slice(0, 160)}`);
      }
      const schema31 = operation.answer(v31, response.status);
      const schema30 = operation.answer(v30, response.status);
      if (answer !== undefined && (!schema31 || !schema30)) {
        disagreements.push(`${name}: the answer ${response.status} is not documented`);
      } else if (answer !== undefined && schema31 && schema30) {
        const [a31, a30] = [valid31(schema31, answer), valid30(schema30, answer)];
        if (!a31 || !a30) disagreements.push(`${name}: answer ${response.status} valid in 3.1 ${a31}, in 3.0 ${a30}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
