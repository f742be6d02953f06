/**
 * Every answer of an operation checked against the contract, in tests and development (`validateResponses`): its
 * status must be one the operation declares, and its body must match that response's schema, compiled from the same
 * document by Ajv as the request check's (contract-requests.ts), without coercion or defaults: what is checked is
 * exactly what is sent. A mismatch is a bug of the server, thrown as an error that answers 500; production skips the
 * check.
 *
 * It checks as express-openapi-validator 5.6.2 did on `res.json`: the status by its number, its class (`2XX`) or
 * `default`; a response without content must have no body, one with content must have a body that matches.
 */
import type { ErrorObject, SchemaObject, ValidateFunction } from "ajv/dist/2020.js";
import { ajvFor, type Operation } from "./contract-requests.ts";

type Json = Record<string, unknown>;

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: SchemaObject }>;
}

/** The checker of one declared response: undefined where the response has no content. */
type Check = ValidateFunction | undefined;

export type CheckResponse = (operation: Operation, status: number, body: unknown) => void;

export function compileResponseCheck(
  doc: Json,
  options: { formats: Record<string, (value: string) => boolean> },
): CheckResponse {
  const ajv = ajvFor(false, options.formats, false);
  const components = (doc.components ?? {}) as Json;
  const compiled = new Map<Operation, Map<string, Check>>();

  function checksOf(operation: Operation): Map<string, Check> {
    let checks = compiled.get(operation);
    if (checks) return checks;
    checks = new Map();
    for (const [status, declared] of Object.entries((operation.schema.responses ?? {}) as Record<string, Json>)) {
      const response = resolve(declared as ResponseObject, components);
      // The JSON media type of the response (`application/json`, or `application/problem+json` for errors).
      const json = Object.entries(response.content ?? {}).find(([type]) =>
        /^application\/([\w.-]+\+)?json$/i.test(type),
      );
      const schema = json?.[1].schema;
      if (response.content && !schema) throw new Error(`Unsupported response ${status}: only JSON`);
      checks.set(status, schema && ajv.compile({ type: "object", properties: { response: schema }, components }));
    }
    compiled.set(operation, checks);
    return checks;
  }

  return function checkResponse(operation, status, body) {
    const checks = checksOf(operation);
    const key = [String(status), `${String(status)[0]}XX`, "default"].find((candidate) => checks.has(candidate));
    const operationId = String(operation.schema.operationId);
    if (key === undefined) throw mismatch(operationId, `no response declared for status ${status}`);
    const check = checks.get(key);
    if (check === undefined) {
      if (body !== undefined) throw mismatch(operationId, `response ${status} should have no body`);
      return;
    }
    if (body === undefined || body === null) throw mismatch(operationId, `response ${status} needs a body`);
    if (!check({ response: body })) throw mismatch(operationId, describe(check.errors ?? []));
  };
}

function resolve(response: ResponseObject, components: Json): ResponseObject {
  if (response.$ref === undefined) return response;
  const name = response.$ref.replace(/^.+\//, "");
  const found = (components.responses as Record<string, ResponseObject> | undefined)?.[name];
  if (!found) throw new Error(`Unresolved response ${response.$ref}`);
  return found;
}

function describe(errors: ErrorObject[]): string {
  return errors.map((error) => `${error.instancePath || "/response"} ${error.message ?? "is invalid"}`).join("; ");
}

function mismatch(operationId: string, detail: string): Error {
  return new Error(`The answer of ${operationId} breaks the contract: ${detail}`);
}
