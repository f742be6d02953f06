/**
 * A check of one value against a schema of the contract, outside a request's own check: for a batch's items, which the
 * request's schema takes as open objects so that one bad item fails alone. The schema is the contract's component
 * (no copy of it here), checked by Ajv as the contract check checks bodies (express-openapi-validator's engine, with
 * its `date-time` rule), and its errors are told as the contract check's are (`fieldErrors`).
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { SchemaCheck } from "../domain/batch-upsert.ts";
import { fieldErrors } from "./error-handler.ts";
import { isStorableDateTime } from "./storable.ts";

const CONTRACT_ID = "https://service.invalid/contract";

/**
 * @example
 * const checkLead = schemaCheck(loadOpenApiDocument().doc, "LeadCreate");
 * checkLead({ email: "nope" }, "/body/items/0"); // [{ path: "body.items.0.email", message: "must match format \"email\"" }]
 */
export function schemaCheck(doc: Record<string, unknown>, name: string): SchemaCheck {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addFormat("date-time", { type: "string", validate: isStorableDateTime });
  ajv.addSchema({ $id: CONTRACT_ID, components: (doc as { components: unknown }).components });
  const validate = ajv.compile({ $ref: `${CONTRACT_ID}#/components/schemas/${name}` });
  return (value, path) => {
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
