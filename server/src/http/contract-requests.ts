/**
 * Every request checked against the contract, with what is compiled from the OpenAPI document once: its route
 * table (path-to-regexp patterns, as Express and express-openapi-validator build them) and, per operation, Ajv
 * validators of its parameters and body (compiled on the operation's first request, then reused).
 *
 * It answers as express-openapi-validator 5.6.2 did, which it replaces on the request path because that validator
 * spent per request about 8 % of the CPU time of a `GET /v1/leads` (a walk over every route, a promise per
 * middleware, a new parameter mutator): an unknown path is a 404, a known path with another method a 405 with
 * `Allow`, a body of another media type a 415, and failed parameters or bodies a 400 whose items carry the same
 * `path`, Ajv `message` and `<keyword>.openapi.validation` code, which `error-handler.ts` turns into problem+json.
 * The Ajv options are that validator's: draft 2020-12, every error at once, defaults applied, query and header
 * values coerced to their types (the body never), ajv-formats' `fast` formats.
 *
 * One of that validator's quirks is left out, for inputs no client of the contract sends: brackets in a query
 * parameter's name are part of the name (`?limit[]=5` is an unknown parameter, where it was read as a list, and
 * `?[a]=1` a 400, where it was dropped).
 *
 * The subset of OpenAPI it supports is what the contract uses, and `compileContract` refuses anything else at start:
 * path, query and header parameters with a schema (query parameters are single values: no arrays, objects or
 * cookies) and `application/json` bodies.
 */
import { Ajv2020, type ErrorObject, type SchemaObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { pathToRegexp } from "path-to-regexp";

/** An error of the request's shape, in express-openapi-validator's form: `error-handler.ts` maps it by status. */
class ContractError extends Error {
  readonly status: number;
  readonly errors: ContractErrorItem[];
  readonly headers: Record<string, string> | undefined;
  constructor(status: number, message: string, errors?: ContractErrorItem[], headers?: Record<string, string>) {
    super(message);
    this.name = "ContractError";
    this.status = status;
    this.errors = errors ?? [];
    this.headers = headers;
  }
}

interface ContractErrorItem {
  /** `/query/limit`, `/body/email`, `/headers/idempotency-key`. */
  path: string;
  message: string;
  /** `<ajv keyword>.openapi.validation`, absent on checks of our own (an unknown query parameter). */
  errorCode?: string;
}

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: SchemaObject;
  content?: unknown;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const PARAMETER_PLACES: Record<string, "query" | "headers" | "params"> = {
  query: "query",
  header: "headers",
  path: "params",
};

export interface Operation {
  /** The route template (`/v1/leads/:lead_id`): the metrics' label. */
  readonly expressRoute: string;
  /** The document's operation object, whose operationId operations.ts dispatches by. */
  readonly schema: Json;
  /** The declared query parameters: any other is a 400. */
  readonly queryNames: ReadonlySet<string>;
  /** Media types of the body (lower case), absent when the operation takes none. */
  readonly mediaTypes: ReadonlySet<string> | undefined;
  readonly bodyRequired: boolean;
  /** What the validators below are compiled from: the parameters by place, and the body when there is one. */
  readonly parametersSchema: SchemaObject;
  readonly bodySchema: SchemaObject | undefined;
  /** Built on the operation's first request. */
  validators?: { parameters: ValidateFunction; body: ValidateFunction | undefined };
}

interface Route {
  readonly regexp: RegExp;
  readonly keys: string[];
  readonly operations: ReadonlyMap<string, Operation>;
  /** `Allow` of a 405: the path's methods, in the document's order. */
  readonly allow: string;
}

/** Ajv as express-openapi-validator configures it; `useDefaults` fills defaults in (requests only). */
export function ajvFor(coerceTypes: boolean, formats: Record<string, (value: string) => boolean>, useDefaults = true) {
  const ajv = new Ajv2020({
    strict: false,
    strictNumbers: true,
    strictTuples: true,
    allowUnionTypes: false,
    validateSchema: false,
    coerceTypes,
    useDefaults,
    removeAdditional: false,
    allErrors: true,
  });
  // A CommonJS module whose default export is `exports.default` to TypeScript.
  const addFormats = formatsPlugin as unknown as typeof formatsPlugin.default;
  addFormats(ajv, { mode: "fast" });
  for (const [name, validate] of Object.entries(formats)) ajv.addFormat(name, { type: "string", validate });
  return ajv;
}

/** The parameters' schema: an object per place, as express-openapi-validator composes it. */
function parametersSchema(parameters: Parameter[], components: unknown): SchemaObject {
  const places: Record<string, { type: "object"; properties: Json; required?: string[] }> = {};
  for (const parameter of parameters) {
    const place = PARAMETER_PLACES[parameter.in];
    if (!place || !parameter.schema || parameter.content !== undefined) {
      throw new Error(`Unsupported parameter ${parameter.in} ${parameter.name}: only path, query and header schemas`);
    }
    const type = parameter.schema.type;
    if (place === "query" && (type === "array" || type === "object")) {
      throw new Error(`Unsupported query parameter ${parameter.name}: only single values`);
    }
    const name = place === "headers" ? parameter.name.toLowerCase() : parameter.name;
    places[place] ??= { type: "object", properties: {} };
    places[place].properties[name] = parameter.schema;
    if (parameter.required) {
      places[place].required ??= [];
      places[place].required.push(name);
    }
  }
  return {
    components,
    required: ["query", "headers", "params"],
    properties: { query: places.query ?? {}, headers: places.headers ?? {}, params: places.params ?? {}, body: {} },
  };
}

function resolveParameter(doc: Json, parameter: Json): Parameter {
  const ref = parameter.$ref;
  if (typeof ref !== "string") return parameter as unknown as Parameter;
  const name = ref.replace(/^.+\//, "");
  const found = ((doc.components as Json | undefined)?.parameters as Json | undefined)?.[name];
  if (!found) throw new Error(`Unresolved parameter ${ref}`);
  return found as Parameter;
}

/** The resolved parameters of an operation: the path item's, then the operation's (which win by name and place). */
function parametersOf(doc: Json, item: Json, operation: Json): Parameter[] {
  const all = [
    ...((item.parameters as Json[] | undefined) ?? []),
    ...((operation.parameters as Json[] | undefined) ?? []),
  ];
  const byKey = new Map<string, Parameter>();
  for (const raw of all) {
    const parameter = resolveParameter(doc, raw);
    byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

export interface CompiledContract {
  /** The operation of a request and its path parameters, or the ContractError it answers (404, 405). */
  match(method: string, path: string): { operation: Operation; pathParams: Record<string, string> };
  /**
   * Checks the request's parameters and body, coercing them and applying defaults in place (the query is node's
   * `querystring.parse` of the query string, as Express 5 reads it); throws a 400 or 415.
   */
  check(operation: Operation, request: CheckedRequest): void;
}

/** A request's parts as they are checked. */
interface CheckedRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly query: Record<string, unknown>;
  readonly params: Record<string, string>;
  readonly body: unknown;
}

export function compileContract(
  doc: Json,
  options: { formats: Record<string, (value: string) => boolean> },
): CompiledContract {
  const general = ajvFor(true, options.formats);
  const bodies = ajvFor(false, options.formats);
  const components = doc.components;
  const routes: Route[] = [];
  /** Routes without parameters by their exact path (the common case: a request spelled as the contract spells it). */
  const exact = new Map<string, Route>();

  for (const [openApiRoute, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    const expressRoute = openApiRoute.replace(/\{([^}]+)\}/g, ":$1");
    const { regexp, keys } = pathToRegexp(expressRoute, { sensitive: false });
    const operations = new Map<string, Operation>();
    const methods: string[] = [];
    for (const method of Object.keys(item)) {
      if (!HTTP_METHODS.includes(method)) continue;
      methods.push(method);
      const schema = item[method] as Json;
      const parameters = parametersOf(doc, item, schema);
      const requestBody = schema.requestBody as { required?: boolean; content?: Record<string, Json> } | undefined;
      const content = requestBody?.content;
      if (content && Object.keys(content).some((type) => type.toLowerCase() !== "application/json")) {
        throw new Error(`Unsupported body of ${String(schema.operationId)}: only application/json`);
      }
      const bodyRequired = requestBody?.required === true;
      const operation: Operation = {
        expressRoute,
        schema,
        queryNames: new Set(parameters.filter((parameter) => parameter.in === "query").map((p) => p.name)),
        mediaTypes: content ? new Set(Object.keys(content).map((type) => type.toLowerCase())) : undefined,
        bodyRequired,
        parametersSchema: parametersSchema(parameters, components),
        bodySchema: content && {
          components,
          properties: { body: (content["application/json"]?.schema as SchemaObject | undefined) ?? {} },
          ...(bodyRequired ? { required: ["body"] } : {}),
        },
      };
      operations.set(method.toUpperCase(), operation);
    }
    const route: Route = { regexp, keys: keys.map((key) => key.name), operations, allow: methods.join(", ") };
    routes.push(route);
    if (keys.length === 0) exact.set(openApiRoute, route);
  }

  function validatorsOf(operation: Operation) {
    operation.validators ??= {
      parameters: general.compile(operation.parametersSchema),
      body: operation.bodySchema && bodies.compile(operation.bodySchema),
    };
    return operation.validators;
  }

  return {
    match(method, path) {
      let route = exact.get(path.endsWith("/") && path.length > 1 ? path.slice(0, -1) : path);
      let found: RegExpExecArray | null = null;
      if (!route) {
        for (const candidate of routes) {
          found = candidate.regexp.exec(path);
          if (found) {
            route = candidate;
            break;
          }
        }
      }
      if (!route) throw new ContractError(404, "not found");
      const operation = route.operations.get(method);
      if (!operation) {
        throw new ContractError(405, `${method} method not allowed`, undefined, { Allow: route.allow });
      }
      const pathParams: Record<string, string> = {};
      if (found) {
        try {
          route.keys.forEach((key, index) => {
            pathParams[key] = decodeURIComponent(found[index + 1] as string);
          });
        } catch {
          throw new ContractError(400, "malformed URI", [{ path, message: "malformed URI" }]);
        }
      }
      return { operation, pathParams };
    },

    check(operation, request) {
      if (operation.mediaTypes) {
        // Node keeps the first of several Content-Type fields: it is one string or none.
        const header = request.headers["content-type"] as string | undefined;
        const mediaType = header?.split(";")[0]?.trim().toLowerCase();
        if (mediaType === undefined ? operation.bodyRequired : !operation.mediaTypes.has(mediaType)) {
          throw new ContractError(415, `unsupported media type ${mediaType ?? "(none)"}`);
        }
      }
      const { query } = request;
      for (const name of Object.keys(query)) {
        if (!operation.queryNames.has(name)) throw queryError(name, `Unknown query parameter '${name}'`);
        if (query[name] === "") throw queryError(name, `Empty value found for query parameter '${name}'`);
      }
      const validators = validatorsOf(operation);
      const parametersValid = validators.parameters(request);
      const bodyValid = validators.body ? validators.body(request) : true;
      if (parametersValid && bodyValid) return;
      const errors = [...(validators.parameters.errors ?? []), ...(validators.body?.errors ?? [])];
      throw new ContractError(400, "request validation failed", errors.map(toItem));
    },
  };
}

function queryError(name: string, message: string): ContractError {
  return new ContractError(400, message, [{ path: `/query/${name}`, message }]);
}

/** An Ajv error as express-openapi-validator reported it: the missing or unknown property's own path. */
function toItem(error: ErrorObject): ContractErrorItem {
  const params = error.params as {
    missingProperty?: string;
    additionalProperty?: string;
    unevaluatedProperty?: string;
  };
  const named = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
  const allowed = error.keyword === "enum" ? (error.params as { allowedValues?: unknown[] }).allowedValues : undefined;
  return {
    path: named !== undefined ? `${error.instancePath}/${named}` : error.instancePath,
    message: allowed ? `${error.message}: ${allowed.join(", ")}` : (error.message ?? "is invalid"),
    errorCode: `${error.keyword}.openapi.validation`,
  };
}
