/**
 * The OpenAPI 2.0 (Swagger) document, for tools that import only 2.0 (Power Automate's custom connectors): the 3.0
 * document converted by api-spec-converter (APIs.guru's converter), then finished where 2.0 cannot say what 3.0 does
 * and the converter leaves it as it was:
 * - response headers lose `required` (2.0 headers have no such field);
 * - the API key's `http` bearer scheme becomes an `apiKey` in the `Authorization` header (2.0 has no bearer scheme:
 *   the caller sends `Bearer <API_KEY>` as the key's value), and the session cookie an `apiKey` in the `Cookie` header
 *   (2.0 keys live in a header or the query);
 * - the webhooks (`x-webhooks`, and the `x-components` they point into) are left out: 2.0 cannot describe them;
 * - a nullable enum (`x-nullable`, the 2.0 convention) loses the `null` that 3.0 lists among its values: 2.0 has no
 *   null type, so the value would contradict the enum's `type`;
 * - the body's `url` of an operation marked `x-ms-trigger` (the subscription create) is Power Automate's
 *   notification URL (`x-ms-notification-url`), filled by Power Automate and hidden from its user;
 * - a 400's named examples (2.0 has one example per media type) become the example of a field that fails its schema;
 *   the other refusals stay listed in the answer's description;
 * - a `oneOf` with a `discriminator` (Event) becomes 2.0's polymorphism (Swagger 2.0 §4.4.4.1 "Models with
 *   Polymorphism Support"): the base schema names the discriminating property, and one definition per value, named by
 *   it, is the base and the variant together. The converter left Event as any object;
 * - an `anyOf` of `required` lists ("at least one of", LeadCreate) has no 2.0 form (2.0 has no `anyOf`, `oneOf` or
 *   `not`): the schema says what 2.0 can, `minProperties: 1` (so `{}` fails), and keeps the lists as
 *   `x-required-any-of` beside its description.
 */
import converter from "api-spec-converter";

type Json = Record<string, unknown>;

const API_KEY_DESCRIPTION =
  "An API key, sent as `Authorization: Bearer <API_KEY>`: enter `Bearer ` followed by the key. Keys are created in the " +
  "workspace's developer settings with a name and scopes; each `/v1` operation names the scope it needs in " +
  "`x-required-scopes`.";

/** The 2.0 document of a 3.0 `doc` (left unchanged). */
export async function toSwagger2(doc: Json): Promise<Json> {
  const converted = await converter.convert({ from: "openapi_3", to: "swagger_2", source: structuredClone(doc) });
  const swagger = finishSwagger2(JSON.parse(converted.stringify()) as Json);
  badRequestExamples(doc, swagger);
  polymorphism(doc, swagger);
  requiredAnyOf(doc, swagger);
  return swagger;
}

const schemasOf = (doc: Json): Json =>
  isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
const definitionsOf = (doc: Json): Json => (isObject(doc.definitions) ? doc.definitions : {});

/** The 3.0 document's operation at `path` and `method`, with the 2.0 document's beside it. */
function* operationPairs(doc: Json, swagger: Json): Generator<[Json, Json]> {
  const paths = isObject(swagger.paths) ? swagger.paths : {};
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    for (const [method, operation] of Object.entries(isObject(item) ? item : {})) {
      const target = isObject(paths[path]) ? (paths[path] as Json)[method] : undefined;
      if (isObject(operation) && isObject(target)) yield [operation, target];
    }
  }
}

function badRequestExamples(doc: Json, swagger: Json): void {
  for (const [operation, target] of operationPairs(doc, swagger)) {
    const response = isObject(operation.responses) ? operation.responses["400"] : undefined;
    const media = isObject(response) && isObject(response.content) ? response.content["application/problem+json"] : {};
    const examples = isObject(media) && isObject(media.examples) ? Object.values(media.examples) : [];
    const [first] = examples;
    const answer = isObject(target.responses) ? target.responses["400"] : undefined;
    if (isObject(first) && isObject(answer)) answer.examples = { "application/problem+json": first.value };
  }
}

function polymorphism(doc: Json, swagger: Json): void {
  const definitions = definitionsOf(swagger);
  for (const [name, schema] of Object.entries(schemasOf(doc))) {
    if (!isObject(schema) || !Array.isArray(schema.oneOf) || !isObject(schema.discriminator)) continue;
    const property = String(schema.discriminator.propertyName);
    const mapping = isObject(schema.discriminator.mapping) ? schema.discriminator.mapping : {};
    definitions[name] = {
      type: "object",
      ...(schema.description === undefined ? {} : { description: schema.description }),
      discriminator: property,
      required: [property],
      properties: { [property]: { type: "string", enum: Object.keys(mapping) } },
    };
    for (const [value, ref] of Object.entries(mapping)) {
      const variant = String(ref).split("/").pop() as string;
      definitions[value] = {
        description: `The ${name} whose \`${property}\` is \`${value}\`: ${variant}.`,
        allOf: [{ $ref: `#/definitions/${name}` }, { $ref: `#/definitions/${variant}` }],
      };
    }
  }
}

function requiredAnyOf(doc: Json, swagger: Json): void {
  const definitions = definitionsOf(swagger);
  for (const [name, schema] of Object.entries(schemasOf(doc))) {
    const lists = isObject(schema) && Array.isArray(schema.anyOf) ? schema.anyOf : [];
    const names = lists.map((branch) => (isObject(branch) && Array.isArray(branch.required) ? branch.required : []));
    const target = definitions[name];
    if (!names.length || names.some((list) => list.length !== 1) || !isObject(target)) continue;
    target.minProperties = 1;
    target["x-required-any-of"] = names.flat();
  }
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What the converter leaves that 2.0 does not allow, or that Power Automate needs said (see the file's header). */
function finishSwagger2(doc: Json): Json {
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    for (const operation of Object.values(isObject(item) ? item : {})) {
      if (!isObject(operation)) continue;
      for (const response of Object.values(isObject(operation.responses) ? operation.responses : {})) {
        const headers = isObject(response) && isObject(response.headers) ? response.headers : {};
        for (const header of Object.values(headers)) if (isObject(header)) delete header.required;
      }
      if (operation["x-ms-trigger"] !== undefined) markNotificationUrl(doc, operation);
    }
  }
  const schemes = isObject(doc.securityDefinitions) ? doc.securityDefinitions : {};
  if (isObject(schemes.ApiKeyBearer)) {
    schemes.ApiKeyBearer = { type: "apiKey", in: "header", name: "Authorization", description: API_KEY_DESCRIPTION };
  }
  if (isObject(schemes.SessionCookie)) {
    schemes.SessionCookie = {
      type: "apiKey",
      in: "header",
      name: "Cookie",
      description: `${String(schemes.SessionCookie.description ?? "")} Sent as \`Cookie: sid=<session>\`.`.trim(),
    };
  }
  delete doc["x-webhooks"];
  delete doc["x-components"];
  withoutNullInEnums(doc.definitions);
  return doc;
}

function withoutNullInEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) withoutNullInEnums(child);
    return;
  }
  if (!isObject(node)) return;
  if (node["x-nullable"] === true && Array.isArray(node.enum)) node.enum = node.enum.filter((value) => value !== null);
  for (const child of Object.values(node)) withoutNullInEnums(child);
}

/** The trigger's body schema, its `url` made Power Automate's notification URL (inline, so other operations keep theirs). */
function markNotificationUrl(doc: Json, operation: Json): void {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
  const body = parameters.find((parameter): parameter is Json => isObject(parameter) && parameter.in === "body");
  if (!body || !isObject(body.schema)) throw new Error(`${operation.operationId}: a trigger needs a body`);
  const ref = body.schema.$ref;
  const definitions = isObject(doc.definitions) ? doc.definitions : {};
  const schema = structuredClone(typeof ref === "string" ? definitions[ref.split("/").pop() as string] : body.schema);
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  if (!isObject(properties.url)) throw new Error(`${operation.operationId}: a trigger's body needs a url`);
  // Inline the URL's own schema (its `type` is what Power Automate reads), beside the property's description.
  const [only] = Array.isArray(properties.url.allOf) ? properties.url.allOf : [];
  const target =
    isObject(only) && typeof only.$ref === "string" ? definitions[only.$ref.split("/").pop() as string] : {};
  const { allOf: _allOf, ...own } = properties.url;
  properties.url = {
    ...(isObject(target) ? target : {}),
    ...own,
    "x-ms-notification-url": true,
    "x-ms-visibility": "internal",
  };
  body.schema = schema;
}
