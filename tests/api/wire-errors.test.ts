/**
 * The error answers of the wire, generated from the contract: every path and operation of the OpenAPI document gets
 * requests broken in one way each, and each answer is pinned (status, `code`, field errors, `Allow`,
 * `WWW-Authenticate`), with problem+json and the API's security headers on every one. An operation added to the
 * contract is covered without touching this file.
 *
 * The order of the checks (api-router.ts) is pinned too: an unknown path or method is answered without credentials;
 * authentication and scope come before anything the request carries (the 401 and 403 cases send valid bodies, the
 * others a caller the operation admits); the body parser answers a malformed or oversized body before the contract
 * check (those requests also carry an unknown query parameter).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/src/config.ts";
import { loadOpenApiDocument } from "../../server/src/http/openapi-document.ts";
import { registerAndVerify, type SignedIn, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { useTestService } from "../helpers/service.ts";

type Schema = {
  $ref?: string;
  type?: string;
  pattern?: string;
  enum?: string[];
  required?: string[];
  properties?: Record<string, Schema>;
};
type Parameter = { $ref?: string; name: string; in: string; schema: Schema };
type Operation = {
  operationId: string;
  security?: Record<string, string[]>[];
  "x-required-scopes"?: string[];
  "x-test-mode-only"?: boolean;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema; example: Record<string, unknown> }> };
};
const doc = loadOpenApiDocument().doc as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Schema>>;
};
function resolve<T extends { $ref?: string }>(node: T): T {
  if (!node.$ref) return node;
  const [, , group, name] = node.$ref.split("/");
  const target = doc.components[group as string]?.[name as string];
  if (!target) throw new Error(`no ${node.$ref} in the document`);
  return resolve(target as T);
}

const METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH"];
/** The API's security headers (api-router.ts), as helmet writes the CSP: directives joined by `;` alone. */
const API_CSP = "default-src 'none';frame-ancestors 'none'";
/** Headers helmet sets by default that concern HTML pages in old browsers, not a JSON API's answers. */
const HTML_ONLY_HEADERS = [
  "x-dns-prefetch-control",
  "x-download-options",
  "x-permitted-cross-domain-policies",
  "x-xss-protection",
  "x-powered-by",
];
const BEARER_CHALLENGE = 'Bearer realm="api"';
const UNKNOWN = "wire_unknown";
const ULID = "01JD3Z6Q4W2YB7K8N9P0R5S6T7";
const json = { "content-type": "application/json" };

/** An id of a path parameter, from its pattern (`^lead_[0-9A-HJKMNP-TV-Z]{26}$` → `lead_01JD…`, or `lead_x`). */
const idFor = (parameter: Parameter, bad = false) =>
  `${/^\^([a-z]+_)/.exec(resolve(parameter.schema).pattern ?? "")?.[1]}${bad ? "x" : ULID}`;

/** The methods of a path item (the keys that are not methods, such as `parameters`, left out), upper-cased. */
const methodsOf = (item: Record<string, unknown>) =>
  Object.keys(item)
    .map((key) => key.toUpperCase())
    .filter((m) => METHODS.includes(m));

const operations = Object.entries(doc.paths).flatMap(([template, item]) =>
  methodsOf(item).map((method) => {
    const operation = item[method.toLowerCase()] as Operation;
    const pathParameters = (operation.parameters ?? []).map(resolve).filter((parameter) => parameter.in === "path");
    /** The path with well-formed ids, but for the one named `bad`. */
    const fill = (bad?: string) =>
      template.replace(/\{([a-z_]+)\}/g, (_, name: string) =>
        idFor(pathParameters.find((parameter) => parameter.name === name) as Parameter, name === bad),
      );
    const body = operation.requestBody?.content["application/json"];
    return {
      id: operation.operationId,
      method,
      template,
      path: fill(),
      fill,
      pathParameters,
      scheme: Object.keys(operation.security?.[0] ?? {})[0],
      scopes: operation["x-required-scopes"] ?? [],
      /** Only a test key gets past authentication (a live one is a 403 `TEST_MODE_ONLY`). */
      testMode: operation["x-test-mode-only"] === true,
      body: body && { schema: resolve(body.schema), example: body.example },
    };
  }),
);
type Op = (typeof operations)[number];
const paths = Object.entries(doc.paths).map(([template, item]) => ({
  template,
  path: (operations.find((op) => op.template === template) as Op).path,
  // Every GET answers HEAD too (RFC 9110 §9.3.2), which the document does not list.
  allow: methodsOf(item).includes("GET") ? [...methodsOf(item), "HEAD"] : methodsOf(item),
}));
const isContractPath = (path: string) =>
  Object.keys(doc.paths).some((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, or a function of the service's body limit. */
  body?: string | ((limit: number) => string);
  /**
   * Credentials: none (anonymous), a session without its CSRF token, a key with every scope but these, or a caller
   * that the operation's scheme admits; a key of test mode (`sk_test_`) with `testMode`.
   */
  as?: "session-without-csrf" | { lacking: string[]; testMode?: boolean } | { caller: string; testMode?: boolean };
  status: number;
  code?: string;
  allow?: string[];
  challenge?: string;
  errors?: unknown[];
}

/** A request the contract check admits: well-formed ids and, for an operation with a body, its example. */
const valid = (op: Op) => ({
  method: op.method,
  path: op.path,
  ...(op.body ? { headers: json, body: JSON.stringify(op.body.example) } : {}),
});
/** A caller the operation admits, for the cases past authentication. */
const admitted = (op: Op) => (op.scheme ? { as: { caller: op.scheme, testMode: op.testMode } } : {});

/** The errors of a value of the wrong JSON type: its type's, then its enum's. */
function typeErrors(schema: Schema | undefined, path: string): unknown[] {
  const { type, enum: values } = resolve(schema ?? {});
  if (!type) return [{ path, message: expect.any(String) }];
  const allowed = values ? [{ path, message: `must be equal to one of the allowed values: ${values.join(", ")}` }] : [];
  return [{ path, message: `must be ${type}` }, ...allowed];
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const prefix of new Set(Object.keys(doc.paths).map((path) => path.split("/")[1]))) {
    for (const method of ["GET", "POST"]) {
      out.push({ name: `${method} /${prefix}/${UNKNOWN}: 404`, method, path: `/${prefix}/${UNKNOWN}`, status: 404 });
    }
  }
  for (const { template, path, allow } of paths) {
    for (const method of [...METHODS, "HEAD"].filter((method) => !allow.includes(method))) {
      out.push({ name: `${method} ${template}: 405 with Allow ${allow.join(", ")}`, method, path, status: 405, allow });
    }
  }
  for (const op of operations) {
    const label = `${op.id} (${op.method} ${op.template})`;
    const request = valid(op);
    const deeper = `${op.path}/${UNKNOWN}`;
    if (!isContractPath(deeper))
      out.push({ name: `${label} one segment deeper: 404`, ...request, path: deeper, status: 404 });
    out.push({
      name: `${label} with an unknown query parameter: 400 naming it`,
      ...request,
      ...admitted(op),
      path: `${op.path}?${UNKNOWN}=1`,
      status: 400,
      errors: [{ path: `query.${UNKNOWN}`, message: `Unknown query parameter '${UNKNOWN}'` }],
    });
    for (const { name, schema } of op.pathParameters) {
      out.push({
        name: `${label} with a malformed ${name}: 400 naming it`,
        ...request,
        ...admitted(op),
        path: op.fill(name),
        status: 400,
        // The contract's FieldError names a path parameter `path.<name>` (spec/common/errors.tsp).
        errors: [{ path: `path.${name}`, message: `must match pattern "${resolve(schema).pattern}"` }],
      });
    }
    if (op.method !== "GET") {
      const write = { method: op.method, path: `${op.path}?${UNKNOWN}=1`, headers: json, ...admitted(op) };
      const malformed = { ...write, body: '{"a":', status: 400, code: "MALFORMED_JSON" };
      out.push({ name: `${label} with malformed JSON: 400 before the contract check`, ...malformed });
      out.push({
        name: `${label} with a body over the limit: 413 before the contract check`,
        ...write,
        body: (limit) => JSON.stringify({ pad: "x".repeat(limit) }),
        status: 413,
        code: "PAYLOAD_TOO_LARGE",
      });
    }
    if (op.body) {
      const { schema, example } = op.body;
      const text = { ...request, ...admitted(op), headers: { "content-type": "text/plain" } };
      out.push({ name: `${label} as text/plain: 415`, ...text, status: 415, code: "UNSUPPORTED_MEDIA_TYPE" });
      for (const type of ["application/json", "application/json; x=random"]) {
        out.push({
          name: `${label} as ${type} with an unknown property: read as JSON, 400 naming it`,
          ...request,
          ...admitted(op),
          headers: { "content-type": type },
          body: JSON.stringify({ ...example, [UNKNOWN]: 1 }),
          status: 400,
          errors: [{ path: `body.${UNKNOWN}`, message: `unknown property \`${UNKNOWN}\`` }],
        });
      }
      for (const field of schema.required ?? []) {
        const { [field]: _, ...rest } = example;
        out.push({
          name: `${label} without ${field}: 400 naming it`,
          ...request,
          ...admitted(op),
          body: JSON.stringify(rest),
          status: 400,
          errors: [{ path: `body.${field}`, message: `must have required property '${field}'` }],
        });
      }
      for (const [field, value] of Object.entries(example)) {
        out.push({
          name: `${label} with ${field} of a wrong type: 400 naming it`,
          ...request,
          ...admitted(op),
          body: JSON.stringify({ ...example, [field]: typeof value === "string" ? 12345 : "x" }),
          status: 400,
          errors: typeErrors(schema.properties?.[field], `body.${field}`),
        });
      }
    }
    if (op.scheme === "ApiKeyBearer") {
      for (const [credential, authorization] of [
        ["no Authorization", undefined],
        ["an unknown key", `Bearer sk_${ULID}`],
        ["a Basic credential", "Basic dXNlcjpwYXNz"],
      ] as const) {
        out.push({
          name: `${label} with ${credential}: 401 with a challenge`,
          ...request,
          headers: { ...request.headers, ...(authorization ? { authorization } : {}) },
          status: 401,
          code: "UNAUTHENTICATED",
          challenge: BEARER_CHALLENGE,
        });
      }
      out.push({
        name: `${label} with a key lacking ${op.scopes.join(", ")}: 403 naming the scope`,
        ...request,
        as: { lacking: op.scopes, testMode: op.testMode },
        status: 403,
        code: "INSUFFICIENT_SCOPE",
        challenge: `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${op.scopes.join(" ")}"`,
      });
    }
    if (op.testMode) {
      out.push({
        name: `${label} with a live key of every scope: 403 TEST_MODE_ONLY`,
        ...request,
        as: { caller: "ApiKeyBearer" },
        status: 403,
        code: "TEST_MODE_ONLY",
      });
    }
    if (op.scheme === "SessionCookie") {
      out.push({ name: `${label} without the session: 401`, ...request, status: 401, code: "UNAUTHENTICATED" });
      const csrf = { ...request, as: "session-without-csrf" as const, status: 403, code: "CSRF_TOKEN_INVALID" };
      if (op.method !== "GET") out.push({ name: `${label} without X-CSRF-Token: 403`, ...csrf });
    }
  }
  return out;
}

describe("error answers on the wire, generated from the contract", () => {
  const service = useTestService({ TRUST_PROXY: "loopback" });
  /** Keys by mode and the scopes they lack ("live leads:read"), and a key of every scope in each mode. */
  const keys = new Map<string, string>();
  const fullKeys = new Map<"live" | "test", string>();
  let session: SignedIn;
  let bodyLimit: number;
  beforeAll(async () => {
    bodyLimit = loadConfig(service().env).bodyLimitBytes;
    const scopes = resolve<Schema>({ $ref: "#/components/schemas/Scope" }).enum ?? [];
    for (const mode of ["live", "test"] as const) {
      for (const needed of new Set(operations.map((op) => op.scopes.join(" ")).filter(Boolean))) {
        const granted = scopes.filter((scope) => !needed.split(" ").includes(scope));
        keys.set(`${mode} ${needed}`, (await workspaceWithKey(service(), granted, mode)).key);
      }
      fullKeys.set(mode, (await workspaceWithKey(service(), scopes, mode)).key);
    }
    const email = uniqueEmail("wire");
    await registerAndVerify(service(), email);
    session = await signIn(service(), email);
  });

  function send(item: Case): Promise<Response> {
    const headers = { ...item.headers };
    if (item.as === "session-without-csrf") headers.cookie = session.cookie;
    else if (item.as && "caller" in item.as && item.as.caller === "SessionCookie") {
      Object.assign(headers, { cookie: session.cookie, "x-csrf-token": session.csrf });
    } else if (item.as && "caller" in item.as) {
      headers.authorization = `Bearer ${fullKeys.get(item.as.testMode ? "test" : "live")}`;
    } else if (item.as) {
      headers.authorization = `Bearer ${keys.get(`${item.as.testMode ? "test" : "live"} ${item.as.lacking.join(" ")}`)}`;
    }
    const body = typeof item.body === "function" ? item.body(bodyLimit) : item.body;
    return service().fetch(item.path, { method: item.method, headers, ...(body === undefined ? {} : { body }) });
  }

  /** A problem with the case's status, code and extras, and the API's security headers. */
  async function expectAnswer(item: Case): Promise<void> {
    const response = await send(item);
    expect(response.headers.get("content-security-policy")).toBe(API_CSP);
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    // Once each, and none of helmet's switches for old browsers' HTML pages (api-router.ts).
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    for (const legacy of HTML_ONLY_HEADERS) expect(response.headers.has(legacy), legacy).toBe(false);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    // `Allow` is a set (RFC 9110 §10.2.1): its order is not the document's.
    if (item.allow) expect(response.headers.get("allow")?.split(", ").sort()).toEqual([...item.allow].sort());
    if (item.challenge) expect(response.headers.get("www-authenticate")).toBe(item.challenge);
    // A HEAD answer has no body to read the code from (RFC 9110 §9.3.2).
    if (item.method === "HEAD") return void expect(response.status).toBe(item.status);
    const defaults: Record<number, string> = {
      400: "VALIDATION_FAILED",
      404: "ROUTE_NOT_FOUND",
      405: "METHOD_NOT_ALLOWED",
    };
    const problem = await expectProblem(response, item.status, item.code ?? (defaults[item.status] as string));
    if (item.errors) expect(problem.errors).toEqual(item.errors);
  }

  const table = cases();
  it("covers every operation of the document", () => {
    const covered = operations.filter((op) => table.some((item) => item.name.startsWith(`${op.id} `)));
    expect(covered.length).toBe(operations.length);
    expect(table.length).toBeGreaterThan(operations.length * 8);
  });

  it.each(table)("answers $name", async (item) => {
    await expectAnswer(item);
  });

  // The console's page route (ops/console.ts) matches every path: it comes after the API, or Express would answer
  // OPTIONS for it (200 text/plain "GET, HEAD", without the API's headers).
  it.each(paths)(
    "answers OPTIONS $template as any method outside the path item: 405 with Allow",
    async ({ path, allow }) => {
      await expectAnswer({ name: "", method: "OPTIONS", path, status: 405, allow });
    },
  );
});
