/**
 * The catalog of event kinds (`GET /v1/event-types`), read from the contract itself: each kind's description is its
 * webhook operation's, and its `data` schema is the event's `data` in the OpenAPI document with every schema it
 * refers to copied under `$defs`, so that a tool can validate a delivery with that one object. Nothing here restates a
 * schema: a kind added to the TypeSpec appears here at the next generation.
 */
import type { components } from "@service/spec/schema";

type EventTypeInfo = components["schemas"]["EventTypeInfo"];
type Json = Record<string, unknown>;

const REF_PREFIX = "#/components/schemas/";
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A copy of `schema` whose `#/components/schemas/X` references point at `#/$defs/X`, collecting each X in `used`. */
function rehome(schema: unknown, schemas: Json, used: Map<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rehome(item, schemas, used));
  if (!isObject(schema)) return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith(REF_PREFIX)) {
      const name = value.slice(REF_PREFIX.length);
      if (!used.has(name)) {
        used.set(name, undefined);
        used.set(name, rehome(schemas[name], schemas, used));
      }
      copy[key] = `#/$defs/${name}`;
    } else {
      copy[key] = rehome(value, schemas, used);
    }
  }
  return copy;
}

/** Every kind of event of the contract `doc`, in the order of its `EventType` enum. */
export function eventTypeCatalog(doc: Json): EventTypeInfo[] {
  const schemas = (isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {}) as Json;
  const kinds = (schemas.EventType as { enum?: string[] } | undefined)?.enum ?? [];
  const webhooks = (isObject(doc.webhooks) ? doc.webhooks : {}) as Json;
  return kinds.map((kind) => {
    const operation = (webhooks[kind] as { post?: Json } | undefined)?.post ?? {};
    const body = operation.requestBody as { content?: { "application/json"?: { schema?: { $ref?: string } } } };
    const eventRef = body?.content?.["application/json"]?.schema?.$ref ?? "";
    const event = schemas[eventRef.slice(REF_PREFIX.length)] as { properties?: { data?: unknown } } | undefined;
    if (!event?.properties?.data) throw new Error(`the contract has no webhook body for the event type ${kind}`);
    const used = new Map<string, unknown>();
    const data = rehome(event.properties.data, schemas, used) as Json;
    const data_schema: Json = { $schema: "https://json-schema.org/draft/2020-12/schema", ...data };
    if (used.size > 0) data_schema.$defs = Object.fromEntries([...used].sort(([a], [b]) => a.localeCompare(b)));
    return {
      object: "event_type",
      type: kind as EventTypeInfo["type"],
      description: typeof operation.description === "string" ? operation.description : kind,
      data_schema,
    };
  });
}
