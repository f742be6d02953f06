/**
 * Pure finishing steps applied to the OpenAPI documents that TypeSpec emits, for what TypeSpec 1.11 cannot say:
 *
 * 1. The webhook operations (tagged `x-webhook` in `routes/webhook-events.tsp`) are moved out of `paths` into the
 *    OpenAPI 3.1 `webhooks` section (`x-webhooks` in 3.0, which has no such section), keyed by event type.
 * 2. In 3.1, each `/v1` operation's `x-required-scopes` becomes its security requirement
 *    (`[{ ApiKeyBearer: [scope] }]`): 3.1 allows role names for any scheme (OAS 3.1 §4.8.30), 3.0 does not.
 * 3. In 3.0, a nullable reference (`allOf: [$ref]` + `nullable: true`, with or without a `type`: TypeSpec's form of
 *    `Scalar | null` and `Enum | null`) is
 *    replaced by a nullable copy of the referenced schema, with `null` added to its `enum`: OAS 3.0.3 §4.7.24.1
 *    gives `nullable` no effect without a sibling `type`, and a `$ref` to an enum refuses `null`, so tools
 *    would otherwise reject the `null` that the API sends.
 * 4. In 3.1, a map (`Record<T>`, emitted as `unevaluatedProperties: T` under sealing) becomes
 *    `additionalProperties: T`: the same meaning for a schema without composition, and the form that
 *    openapi-typescript and most generators read (they would type the map as empty).
 * 5. A closed object (`additionalProperties` or `unevaluatedProperties` of `{not: {}}`) says `false`, the same
 *    meaning in the form that code generators and mock servers read (with `{not: {}}`, openapi-typescript-codegen
 *    typed every model as `Record<string, any>` and Prism's mocks invented keys).
 * 6. Every query parameter is `allowReserved`: `?email=ada@example.com` and `?created_after=…T00:00:00Z` are
 *    what axios, Postman and curl send (RFC 3986 §3.4 allows `@`, `:` and `/` in a query).
 * 7. The API key is the document's default `security`; an operation without authentication says `security: []`.
 * 8. A schema's `x-required-any-of` (lists of property names) becomes `anyOf` of `required` lists: "give at least
 *    one of these", which TypeSpec cannot say.
 * 9. Examples of every parameter and every error answer (examples.ts); a 400 has one per refusal that no schema can
 *    say (`x-refusals`), with the request that meets it.
 * 10. In 3.0, a nullable union without a `type` makes each of its branches nullable.
 * 11. Every `date-time` carries the `pattern` of what PostgreSQL can store (year 0001 on, offsets within ±15:59), and
 *     every other string without a rule of its own the pattern of text it can store (no U+0000, no lone surrogate).
 *
 * Then `withoutUnusedComponents` drops what the steps above left unreferenced (a shared parameter copied into each
 * operation with an example of its own, an enum that 3.0 inlines where it is nullable).
 */

import { errorExamples, parameterExamples } from "./examples.ts";
import { storableDateTimes, storableStrings } from "./stored-values.ts";

type Json = Record<string, unknown>;

const WEBHOOK_EXTENSION = "x-webhook";
const SCOPES_EXTENSION = "x-required-scopes";
const BEARER_SCHEME = "ApiKeyBearer";
const ANY_OF_REQUIRED_EXTENSION = "x-required-any-of";

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Returns a new document; the input is left as it was. */
export function postProcess(input: Json): Json {
  const doc = structuredClone(input);
  const version = String(doc.openapi ?? "");
  const is31 = version.startsWith("3.1");
  const paths = isObject(doc.paths) ? doc.paths : {};
  const webhooks: Json = {};
  const operations: { path: string; method: string; operation: Json }[] = [];

  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const event = operation[WEBHOOK_EXTENSION];
      if (typeof event === "string") {
        delete operation[WEBHOOK_EXTENSION];
        webhooks[event] = { ...(isObject(webhooks[event]) ? webhooks[event] : {}), [method]: operation };
        delete paths[path];
        continue;
      }
      const scopes = operation[SCOPES_EXTENSION];
      if (is31 && Array.isArray(scopes)) {
        operation.security = [{ [BEARER_SCHEME]: scopes }];
      }
      if (
        Array.isArray(operation.security) &&
        operation.security.every((item) => isObject(item) && !Object.keys(item).length)
      ) {
        operation.security = [];
      }
      for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
        if (isObject(parameter) && parameter.in === "query") parameter.allowReserved = true;
      }
      operations.push({ path, method, operation });
    }
  }
  const components = isObject(doc.components) ? doc.components : {};
  for (const parameter of Object.values(isObject(components.parameters) ? components.parameters : {})) {
    if (isObject(parameter) && parameter.in === "query") parameter.allowReserved = true;
  }
  doc.security = [{ [BEARER_SCHEME]: [] }];

  if (!is31) typeNullableRefs(doc);
  if (!is31) nullableBranches(doc);
  if (is31) openMaps(doc);
  closeObjects(doc);
  anyOfRequired(doc);
  storableDateTimes(doc);
  storableStrings(doc);
  parameterExamples(doc, operations);
  errorExamples(operations);

  if (Object.keys(webhooks).length > 0) {
    const sorted = Object.fromEntries(Object.entries(webhooks).sort(([a], [b]) => a.localeCompare(b)));
    const key = is31 ? "webhooks" : "x-webhooks";
    // Keep `webhooks` next to `paths` so the document reads in the usual order.
    const ordered: Json = {};
    for (const [k, v] of Object.entries(doc)) {
      ordered[k] = v;
      if (k === "paths") ordered[key] = sorted;
    }
    return ordered;
  }
  return doc;
}

function typeNullableRefs(doc: Json): void {
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isObject(node)) return;
    if (node.nullable === true && Array.isArray(node.allOf) && node.allOf.length === 1) {
      const ref = isObject(node.allOf[0]) ? node.allOf[0].$ref : undefined;
      const name = typeof ref === "string" ? ref.replace("#/components/schemas/", "") : undefined;
      const target = name === undefined ? undefined : schemas[name];
      // With or without a sibling `type` (TypeSpec writes one for a scalar): `allOf` refuses null either way.
      const sameType = node.type === undefined || (isObject(target) && node.type === target.type);
      if (isObject(target) && typeof target.type === "string" && sameType) {
        delete node.allOf;
        const { description: _ignored, ...shape } = structuredClone(target);
        Object.assign(node, shape, { nullable: true });
        if (Array.isArray(node.enum)) node.enum = [...node.enum, null];
      }
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(doc);
}

/**
 * In 3.0, a nullable union without a `type` (`anyOf` of typed branches + `nullable: true`, TypeSpec's form of
 * `string | numeric | null`) makes each branch nullable instead: OAS 3.0.3 §4.7.24.1 gives `nullable` no effect
 * without a sibling `type`, so tools would refuse the `null` the union allows.
 */
function nullableBranches(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) nullableBranches(child);
    return;
  }
  if (!isObject(node)) return;
  if (node.nullable === true && node.type === undefined && Array.isArray(node.anyOf)) {
    const branches = node.anyOf;
    if (branches.every((branch) => isObject(branch) && typeof branch.type === "string")) {
      node.anyOf = branches.map((branch) => ({ ...(branch as Json), nullable: true }));
      delete node.nullable;
    }
  }
  for (const child of Object.values(node)) nullableBranches(child);
}

function openMaps(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) openMaps(child);
    return;
  }
  if (!isObject(node)) return;
  const unevaluated = node.unevaluatedProperties;
  if (
    isObject(unevaluated) &&
    unevaluated.not === undefined &&
    node.properties === undefined &&
    node.allOf === undefined
  ) {
    delete node.unevaluatedProperties;
    node.additionalProperties = unevaluated;
  }
  for (const child of Object.values(node)) openMaps(child);
}

function closeObjects(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) closeObjects(child);
    return;
  }
  if (!isObject(node)) return;
  for (const key of ["additionalProperties", "unevaluatedProperties"]) {
    const value = node[key];
    if (isObject(value) && isObject(value.not) && Object.keys(value).length === 1 && !Object.keys(value.not).length) {
      node[key] = false;
    }
  }
  for (const child of Object.values(node)) closeObjects(child);
}

function anyOfRequired(doc: Json): void {
  const components = isObject(doc.components) ? doc.components : {};
  for (const schema of Object.values(isObject(components.schemas) ? components.schemas : {})) {
    if (!isObject(schema)) continue;
    const lists = schema[ANY_OF_REQUIRED_EXTENSION];
    if (!Array.isArray(lists)) continue;
    delete schema[ANY_OF_REQUIRED_EXTENSION];
    schema.anyOf = lists.map((name) => ({ required: [name] }));
  }
}

/**
 * The document that TypeScript types are generated from: a depth said by structure typed as any JSON; without the
 * presence-only `anyOf` of `required` lists
 * (openapi-typescript reads each branch as `unknown`, which swallowed the whole `LeadCreate` type; optional fields
 * already describe the shape, and the server enforces the rule) and without the error answers' examples (one JSDoc
 * block per operation and status: thousands of lines in every consumer's editor, saying what the catalog says).
 */
export function forTypes(input: Json): Json {
  const doc = structuredClone(input);
  // A depth said by structure (`x-max-depth`, a custom attribute's value) is typed as what it holds, any JSON: as a
  // union of its levels it would refuse the `Record<string, unknown>` that callers hold.
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  for (const [name, schema] of Object.entries(schemas)) {
    if (isObject(schema) && schema["x-max-depth"] !== undefined) {
      schemas[name] = { ...(schema.description === undefined ? {} : { description: schema.description }) };
    }
  }
  const visit = (node: unknown, parentKey: string | undefined): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child, undefined);
      return;
    }
    if (!isObject(node)) return;
    if (
      Array.isArray(node.anyOf) &&
      node.anyOf.every(
        (branch) => isObject(branch) && Object.keys(branch).length === 1 && Array.isArray(branch.required),
      )
    ) {
      delete node.anyOf;
    }
    if (parentKey === "application/problem+json") {
      delete node.example;
      delete node.examples;
    }
    for (const [key, child] of Object.entries(node)) visit(child, key);
  };
  visit(doc, undefined);
  return doc;
}

/**
 * A document with only `root` and the component schemas it references, transitively: the event types for the
 * webhook verifier, which must not depend on the whole API's types.
 */
export function eventSchemasOnly(doc: Json, root: string): Json {
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const keep = referencedComponents(components, { $ref: `#/components/schemas/${root}` });
  const kept = Object.fromEntries(
    Object.keys(schemas)
      .filter((name) => keep.has(`#/components/schemas/${name}`))
      .map((name) => [name, schemas[name]]),
  );
  return { openapi: doc.openapi, info: doc.info, paths: {}, components: { schemas: kept } };
}

/** Every `#/components/…` reference reachable from `start`, directly or through the components it refers to. */
function referencedComponents(components: Json, start: unknown): Set<string> {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isObject(node)) return;
    const ref = node.$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/") && !used.has(ref)) {
      used.add(ref);
      const [, , group, name] = ref.split("/");
      const target = components[group as string];
      visit(isObject(target) ? target[name as string] : undefined);
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(start);
  return used;
}

/**
 * A copy of a whole document without the components that nothing outside `components` refers to, directly or through
 * other components (security schemes, which requirements name rather than reference, are all kept).
 */
export function withoutUnusedComponents(input: Json): Json {
  const doc = structuredClone(input);
  const components = isObject(doc.components) ? doc.components : {};
  const used = referencedComponents(components, { ...doc, components: undefined });
  for (const [group, entries] of Object.entries(components)) {
    if (group === "securitySchemes" || !isObject(entries)) continue;
    for (const name of Object.keys(entries)) {
      if (!used.has(`#/components/${group}/${name}`)) delete entries[name];
    }
  }
  return doc;
}
