/**
 * What each of the contract's three documents says of a request's body or parameter, read as an independent tool
 * reads it: Ajv 2020-12 for the OpenAPI 3.1 document, Ajv draft-07 with OpenAPI's `nullable` for 3.0, and Ajv
 * draft-07 on the 2.0 (Swagger) document with its conventions (`x-nullable`, and `x-required-any-of`, the one rule
 * 2.0 has no keyword for). Formats in ajv-formats' full mode, as the RFCs read them: no check of the service's own.
 *
 * A query or path value is read from its text by the rule the documents state (`info.description`): an integer in
 * decimal digits, anything else as written.
 */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import YAML from "yaml";

// biome-ignore lint/suspicious/noExplicitAny: the documents are plain JSON, walked by the judges' own checks
export type Json = Record<string, any>;
export type DocumentName = "3.1" | "3.0" | "2.0";
export const DOCUMENT_NAMES: DocumentName[] = ["3.1", "3.0", "2.0"];

const FILES: Record<DocumentName, string> = {
  "3.1": "openapi.yaml",
  "3.0": "openapi.3.0.yaml",
  "2.0": "swagger.2.0.yaml",
};

export function readDocument(name: DocumentName): Json {
  return YAML.parse(readFileSync(new URL(`../../spec/generated/${FILES[name]}`, import.meta.url), "utf8")) as Json;
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A `$ref` of the document followed, to the node it names. */
export function resolve(doc: Json, node: Json): Json {
  if (typeof node.$ref !== "string") return node;
  const found = node.$ref
    .slice(2)
    .split("/")
    .reduce<Json | undefined>((at, key) => (isObject(at) ? at[key] : undefined), doc);
  return isObject(found) ? resolve(doc, found) : node;
}

/** 2.0's conventions in JSON Schema: `x-nullable` admits null, `x-required-any-of` is an `anyOf` of `required`. */
function fromSwagger2(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fromSwagger2);
  if (!isObject(node)) return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fromSwagger2(value)]));
  if (Array.isArray(out["x-required-any-of"])) {
    out.anyOf = out["x-required-any-of"].map((name: string) => ({ required: [name] }));
  }
  if (out["x-nullable"] !== true) return out;
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  return typeof out.type === "string" ? { ...out, type: [out.type, "null"] } : { anyOf: [out, { type: "null" }] };
}

/** The JSON Schema keywords of a 2.0 parameter that is not in the body (it is its own schema there). */
const PARAMETER_KEYWORDS = [
  "type",
  "format",
  "pattern",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "items",
];

export interface Judge {
  /** Whether the document takes `body` as the operation's request body. */
  body(path: string, method: string, body: unknown): boolean;
  /** Whether the document takes `text` as the operation's parameter `name` (in the query or the path). */
  parameter(path: string, method: string, name: string, text: string): boolean;
}

export function judgeOf(name: DocumentName, doc: Json = readDocument(name)): Judge {
  const ajv =
    name === "3.1" ? new Ajv2020({ strict: false }) : new Ajv({ strict: false, discriminator: name === "3.0" });
  addFormats.default(ajv, { mode: "full" });
  const id = `https://contract.invalid/${name}`;
  const root = name === "2.0" ? { definitions: fromSwagger2(doc.definitions) } : { components: doc.components };
  ajv.addSchema({ $id: id, ...root });
  const cache = new Map<string, ValidateFunction>();
  const valid = (schema: Json, value: unknown): boolean => {
    const text = JSON.stringify(name === "2.0" ? fromSwagger2(schema) : schema);
    let validate = cache.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text.replace(/"#\/(components|definitions)\//g, `"${id}#/$1/`)) as Json);
      cache.set(text, validate);
    }
    return validate(value) as boolean;
  };
  const operation = (path: string, method: string): Json => doc.paths[path][method];
  return {
    body(path, method, body) {
      const op = operation(path, method);
      const schema =
        name === "2.0"
          ? (op.parameters as Json[]).map((p) => resolve(doc, p)).find((p) => p.in === "body")?.schema
          : op.requestBody.content["application/json"].schema;
      return valid(schema, body);
    },
    parameter(path, method, parameterName, text) {
      const parameters = (operation(path, method).parameters as Json[]).map((p) => resolve(doc, p));
      const parameter = parameters.find((p) => p.name === parameterName) as Json;
      const schema =
        name === "2.0"
          ? Object.fromEntries(PARAMETER_KEYWORDS.filter((k) => k in parameter).map((k) => [k, parameter[k]]))
          : resolve(doc, parameter.schema);
      return valid(schema, valueOfText(resolve(doc, schema), text));
    },
  };
}

/** The value a query or path text stands for: an integer written in decimal digits, else the text itself. */
function valueOfText(schema: Json, text: string): unknown {
  const types = [schema.type].flat();
  if (types.includes("integer") && /^(?:0|-?[1-9]\d*)$/.test(text)) return Number(text);
  if (types.includes("array")) return text.split(",");
  return text;
}
