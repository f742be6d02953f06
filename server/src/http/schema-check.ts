/**
 * A check of one value against a schema of the contract, outside a request's own check: for a batch's items, which the
 * request's schema takes as open objects so that one bad item fails alone. What PostgreSQL cannot store is checked
 * first, as for a whole body (storable.ts). The schema is the contract's component
 * (no copy of it here), checked by Ajv as the contract check checks bodies (express-openapi-validator's engine, with
 * its formats: contract-formats.ts), and its errors are told as the contract check's are (`fieldErrors`).
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import type { SchemaCheck } from "../domain/batch-upsert.ts";
import { addContractFormats } from "./contract-formats.ts";
import { fieldErrors } from "./error-handler.ts";
import { unstorableFields } from "./storable.ts";

const CONTRACT_ID = "https://service.invalid/contract";

/**
 * @example
 * const checkLead = schemaCheck(loadOpenApiDocument().doc, "LeadCreate");
 * checkLead({ email: "nope" }, "/body/items/0"); // [{ path: "body.items.0.email", message: "must match format \"email\"" }]
 */
export function schemaCheck(doc: Record<string, unknown>, name: string): SchemaCheck {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addContractFormats(ajv);
  ajv.addSchema({ $id: CONTRACT_ID, components: (doc as { components: unknown }).components });
  const validate = ajv.compile({ $ref: `${CONTRACT_ID}#/components/schemas/${name}` });
  return (value, path) => {
    // What PostgreSQL cannot store, as the body-wide check (storable.ts) would have said it, relative to the item.
    const unstorable = unstorableFields(value, path.slice(1).replaceAll("/", "."));
    if (unstorable.length > 0) return unstorable;
    if (validate(value)) return [];
    return fieldErrors((validate.errors ?? []).map((error) => validatorItem(error, path)));
  };
}

/** An Ajv error as express-openapi-validator reports it: the path ends at the property a keyword names. */
function validatorItem(error: ErrorObject, prefix: string) {
  const params = error.params as {
    missingProperty?: string;
    additionalProperty?: string;
    unevaluatedProperty?: string;
  };
  const property = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
  return {
    path: `${prefix}${error.instancePath}${property === undefined ? "" : `/${property}`}`,
    message: error.message,
    errorCode: `${error.keyword}.openapi.validation`,
  };
}

/**
 * The body fields that a batch checks item by item, by path: those of an operation whose body has `items`, an array
 * whose item may be any object (`(LeadBatchUpsertItem | Record<unknown>)[]`), which only the handler checks against
 * the item's own schema.
 */
export function perItemBodies(doc: Record<string, unknown>): Map<string, string> {
  const found = new Map<string, string>();
  for (const [path, item] of Object.entries((field(doc, "paths") ?? {}) as Record<string, unknown>)) {
    const ref = field(item, "post", "requestBody", "content", "application/json", "schema", "$ref");
    const schema = typeof ref === "string" ? field(doc, "components", "schemas", ref.split("/").pop() as string) : {};
    const items = field(schema, "properties", "items");
    const each = field(items, "items");
    const branches = [each, ...((field(each, "anyOf") as unknown[] | undefined) ?? [])];
    const open = branches.some((branch) => field(branch, "type") === "object" && !field(branch, "properties"));
    if (field(items, "type") === "array" && open) found.set(path, "items");
  }
  return found;
}

/** The value at `keys` in parsed JSON, or undefined where any step is missing. */
function field(node: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>(
    (value, key) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined),
    node,
  );
}
