/**
 * Examples that the OpenAPI documents need and TypeSpec 1.11 cannot attach (it emits no parameter examples, and
 * one shared `Problem` example for every error): tools that import the document (Postman, Prism, no-code tools)
 * send what it shows, so every parameter and every error answer carries an example of its own.
 *
 * - Error answers: the code that this status most likely carries for this operation, with its catalog title
 *   (`spec/error-catalog.json`, the same catalog the server answers from); a 400 has named examples, one per
 *   refusal that no schema can say (`x-refusals` of the operation, and the unknown query parameter of every one).
 * - Parameters: only a required one (a path parameter) has an example: the schema's own, and on a DELETE the id of
 *   a second object, so that a collection run in order reads and changes the first object before it deletes anything.
 *   An optional parameter has none: tools that build a form or a node from the document (n8n's generators, Postman
 *   with its optional parameters on) take an example as the value to send on every call, so an example cursor, one
 *   fixed Idempotency-Key or an example filter would be sent each time (decision 0012).
 */
import catalog from "../error-catalog.json" with { type: "json" };

type Json = Record<string, unknown>;
type Code = keyof typeof catalog;

const REQUEST_ID_EXAMPLE = "req_01JD3Z8K1B2C3D4E5F6G7H8J9K";
/** The example id of the second object of a kind: the first's with its last two characters changed. */
function secondId(id: string): string {
  return `${id.slice(0, -2)}${id.endsWith("ZZ") ? "YY" : "ZZ"}`;
}

/** The not-found code of the object a path parameter names. */
const NOT_FOUND_BY_PARAMETER: Record<string, Code> = {
  lead_id: "LEAD_NOT_FOUND",
  conversation_id: "CONVERSATION_NOT_FOUND",
  ticket_id: "TICKET_NOT_FOUND",
  event_id: "EVENT_NOT_FOUND",
  webhook_id: "WEBHOOK_NOT_FOUND",
  delivery_id: "DELIVERY_NOT_FOUND",
  key_id: "API_KEY_NOT_FOUND",
};

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The error code an answer of this status carries, for an operation on this path with these security schemes. */
function exampleCode(status: string, path: string, operation: Json, schemes: string[]): Code {
  const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  const session = schemes.includes("SessionCookie");
  switch (status) {
    case "400":
      return "VALIDATION_FAILED";
    case "401":
      return operation.operationId === "Auth_login" ? "INVALID_CREDENTIALS" : "UNAUTHENTICATED";
    case "403":
      return session ? "CSRF_TOKEN_INVALID" : "INSUFFICIENT_SCOPE";
    case "404":
      return NOT_FOUND_BY_PARAMETER[parameters.at(-1) ?? ""] ?? "ROUTE_NOT_FOUND";
    case "409":
      return "IDEMPOTENCY_KEY_IN_USE";
    case "413":
      return "PAYLOAD_TOO_LARGE";
    case "415":
      return "UNSUPPORTED_MEDIA_TYPE";
    case "422":
      return path.includes("webhooks") && !path.includes("deliveries")
        ? "WEBHOOK_URL_NOT_ALLOWED"
        : "IDEMPOTENCY_KEY_REUSED";
    case "429":
      return "RATE_LIMITED";
    case "503":
      return "SERVICE_UNAVAILABLE";
    default:
      return "INTERNAL_ERROR";
  }
}

/** The problem+json example of one code. */
function problemExample(code: Code): Json {
  const { status, title } = catalog[code];
  const example: Json = {
    type: `/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    title,
    status,
    code,
    request_id: REQUEST_ID_EXAMPLE,
  };
  if (code === "VALIDATION_FAILED") example.errors = [{ path: "body.email", message: 'must match format "email"' }];
  if (code === "RATE_LIMITED") example.detail = "Too many requests; retry after 30 seconds.";
  return example;
}

/**
 * A 400 that no schema of the operation can say (a rule between two parameters, a time that must be in the future),
 * declared on the operation in TypeSpec as `x-refusals`: the request that meets it and the errors it answers.
 */
interface Refusal {
  summary: string;
  /** The answer's code, when not `VALIDATION_FAILED`. */
  code?: Code;
  query?: string;
  body?: unknown;
  errors: { path: string; message: string }[];
}

const REFUSALS_EXTENSION = "x-refusals";

/** Every operation refuses a query parameter it does not list, which OpenAPI has no keyword to say. */
const UNKNOWN_QUERY_PARAMETER: Refusal = {
  summary: "a query parameter that the operation does not list",
  query: "not_a_parameter=1",
  errors: [{ path: "query.not_a_parameter", message: "Unknown query parameter 'not_a_parameter'" }],
};

/** Every list refuses a cursor it did not give (a cursor is opaque: no schema can say which are its own). */
const FOREIGN_CURSOR: Refusal = {
  summary: "a cursor that this list did not give",
  code: "INVALID_CURSOR",
  query: "cursor=not-a-cursor",
  errors: [{ path: "query.cursor", message: "is not a cursor of this list" }],
};

/** Whether an operation takes the list's `cursor` (its own parameter, or the shared one it refers to). */
function takesCursor(operation: Json): boolean {
  return (Array.isArray(operation.parameters) ? operation.parameters : []).some(
    (parameter) =>
      isObject(parameter) &&
      (parameter.name === "cursor" || (typeof parameter.$ref === "string" && /[./]cursor$/.test(parameter.$ref))),
  );
}

/** The problem a refusal answers: its code's example, with its field errors (none when it names no field). */
function refusalProblem(refusal: Refusal): Json {
  const { errors: _default, ...problem } = problemExample(refusal.code ?? "VALIDATION_FAILED");
  return refusal.errors.length > 0 ? { ...problem, errors: refusal.errors } : problem;
}

/** `a query parameter…` → `a_query_parameter…`: an example's name. */
const exampleName = (summary: string) =>
  summary
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

/**
 * The 400 answer's examples: one of a field that fails its schema, and one per refusal the schemas cannot say, each
 * with the request that meets it (`x-request`: a generated client or a fuzzer can send it and expect the example).
 * The answer's description lists the refusals too, for the 2.0 document, which has no named examples.
 */
function badRequestExamples(response: Json, media: Json, operation: Json): void {
  const own = Array.isArray(operation[REFUSALS_EXTENSION]) ? (operation[REFUSALS_EXTENSION] as Refusal[]) : [];
  const refusals = [...own, ...(takesCursor(operation) ? [FOREIGN_CURSOR] : []), UNKNOWN_QUERY_PARAMETER];
  delete media.example;
  media.examples = {
    a_field_that_fails_its_schema: {
      summary: "a field that fails its schema",
      value: problemExample("VALIDATION_FAILED"),
    },
    ...Object.fromEntries(
      refusals.map((refusal) => [
        exampleName(refusal.summary),
        {
          summary: refusal.summary,
          value: refusalProblem(refusal),
          "x-request": {
            ...(refusal.query === undefined ? {} : { query: refusal.query }),
            ...(refusal.body === undefined ? {} : { body: refusal.body }),
          },
        },
      ]),
    ),
  };
  const listed = refusals.map((refusal) => refusal.summary).join("; ");
  response.description = `${String(response.description ?? "")} Refused beyond the schemas: ${listed}.`.trim();
}

/** Adds an example of its own to every error answer of every operation (and named ones to its 400). */
export function errorExamples(operations: Iterable<{ path: string; operation: Json }>): void {
  for (const { path, operation } of operations) {
    const schemes = (Array.isArray(operation.security) ? operation.security : []).flatMap((item) =>
      isObject(item) ? Object.keys(item) : [],
    );
    const responses = isObject(operation.responses) ? operation.responses : {};
    for (const [status, response] of Object.entries(responses)) {
      if (!isObject(response) || !isObject(response.content)) continue;
      const media = response.content["application/problem+json"];
      if (!isObject(media)) continue;
      if (status === "400") badRequestExamples(response, media, operation);
      else media.example = problemExample(exampleCode(status, path, operation, schemes));
    }
    delete operation[REFUSALS_EXTENSION];
  }
}

function resolve(doc: Json, node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  const [, , group, name] = ref.split("/");
  const components = isObject(doc.components) ? doc.components : {};
  const target = (isObject(components[group as string]) ? components[group as string] : {}) as Json;
  const found = target[name as string];
  return isObject(found) ? resolve(doc, found) : node;
}

/** The example of a required parameter of this operation, or undefined (an optional one has none). */
function parameterExample(doc: Json, parameter: Json, operation: Json, method: string): unknown {
  if (parameter.required !== true) return undefined;
  const name = String(parameter.name);
  const schema = isObject(parameter.schema) ? resolve(doc, parameter.schema) : {};
  // 3.0 schemas carry `example`, 3.1 schemas `examples` (JSON Schema 2020-12).
  const own = schema.example ?? (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
  if (method === "delete" && parameter.in === "path" && typeof own === "string") {
    const last = [...String(operation["x-path"] ?? "").matchAll(/\{([^}]+)\}/g)].at(-1)?.[1];
    if (last === undefined || last === name) return secondId(own);
  }
  if (own !== undefined) return own;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  return undefined;
}

/**
 * An optional parameter whose schema is a component with an example (`lead_id: LeadId`) gets that component's schema
 * without it: a generator would take the example as the parameter's value.
 */
function withoutSchemaExample(doc: Json, parameter: Json): Json {
  if (!isObject(parameter.schema) || typeof parameter.schema.$ref !== "string") return parameter;
  const { example: _example, examples: _examples, ...schema } = resolve(doc, parameter.schema);
  if (_example === undefined && _examples === undefined) return parameter;
  return { ...parameter, schema: structuredClone(schema) };
}

/** Gives every required parameter an example (parameterExample); no optional one has any. */
export function parameterExamples(
  doc: Json,
  operations: Iterable<{ path: string; method: string; operation: Json }>,
): void {
  const components = isObject(doc.components) && isObject(doc.components.parameters) ? doc.components.parameters : {};
  for (const { path, method, operation } of operations) {
    if (!Array.isArray(operation.parameters)) continue;
    operation.parameters = operation.parameters.map((raw) => {
      if (!isObject(raw)) return raw;
      const parameter = resolve(doc, raw);
      if (parameter.required !== true && raw.$ref === undefined) return withoutSchemaExample(doc, raw);
      const example = parameterExample(doc, parameter, { ...operation, "x-path": path }, method);
      if (example === undefined) return raw;
      if (raw.$ref === undefined) return { ...raw, example };
      const name = String(raw.$ref).split("/").pop() as string;
      const shared = components[name];
      if (isObject(shared)) shared.example = example;
      return raw;
    });
  }
}
