/**
 * A node for n8n built from the 3.0 document by a generator (`@devlikeapro/n8n-openapi-node`, which turns each
 * operation into a resource's operation with one property per parameter and body field), used without editing it.
 *
 * Such a generator takes a parameter's example as the property's default, and a node sends its defaults on every run:
 * an example cursor, one fixed Idempotency-Key or an example filter would ride along on every call. The document gives
 * no optional parameter an example (decision 0012), so a new node's defaults are empty.
 *
 * n8n itself is not installed here (its runtime pulls in LangChain and a database layer); `request` below builds a
 * call from the generated properties as n8n's declarative routing does: each property's `routing.send` puts its value
 * in the query or the body, `routing.request.headers` in a header. What it sends is the values a person typed into
 * the node and the defaults the document gives (`limit`'s 20, a new lead's `status`); a property whose default the
 * generator made up (`""`, `[null]`, an enum's first value) stands for a field the person leaves empty.
 */
import { readFileSync } from "node:fs";
import { N8NPropertiesBuilder } from "@devlikeapro/n8n-openapi-node";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const DOCUMENT = YAML.parse(readFileSync(new URL("../../spec/generated/openapi.3.0.yaml", import.meta.url), "utf8"));

interface Property {
  name: string;
  type: string;
  default: unknown;
  displayOptions?: { show?: { resource?: string[]; operation?: string[] } };
  routing?: {
    send?: { type: "query" | "body"; property: string; value: string };
    request?: { method?: string; url?: string; headers?: Record<string, string> };
  };
  options?: { name: string; value: string; routing?: Property["routing"] }[];
}

const properties = new N8NPropertiesBuilder(DOCUMENT).build() as unknown as Property[];

/** The properties of one operation of the node (as n8n shows them once the operation is chosen). */
function propertiesOf(resource: string, operation: string): Property[] {
  return properties.filter(
    (property) =>
      property.type !== "notice" &&
      property.displayOptions?.show?.resource?.includes(resource) &&
      property.displayOptions?.show?.operation?.includes(operation),
  );
}

/** The operation's own routing: its method and URL, from the `operation` options property. */
function routeOf(resource: string, operation: string): { method: string; url: string } {
  const chooser = properties.find(
    (property) => property.name === "operation" && property.displayOptions?.show?.resource?.includes(resource),
  );
  const request = chooser?.options?.find((option) => option.value === operation)?.routing?.request;
  if (!request?.method || !request.url) throw new Error(`no routing for ${resource} / ${operation}`);
  return { method: request.method, url: request.url.replace(/^=/, "") };
}

type Json = Record<string, unknown>;
const resolve = (node: Json): Json => {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  const [, , group, name] = ref.split("/") as [string, string, string, string];
  return resolve((DOCUMENT.components[group] as Json)[name] as Json);
};

/** The default the document itself gives a parameter or body field of this operation (undefined: none). */
function documentDefault(method: string, url: string, send: NonNullable<Property["routing"]>["send"], header?: string) {
  const operation = DOCUMENT.paths[url][method.toLowerCase()] as Json;
  if (send?.type === "body") {
    const media = (resolve(operation.requestBody as Json).content as Json)["application/json"] as Json;
    const field = ((resolve(media.schema as Json).properties as Json)[send.property] ?? {}) as Json;
    return field.default ?? field.example;
  }
  const name = header ?? send?.property;
  const parameter = (operation.parameters as Json[]).map(resolve).find((each) => each.name === name) ?? {};
  return parameter.example ?? (parameter.schema as Json | undefined)?.default;
}

/** The request the node makes for `operation` with `typed` entered by the person and every other field untouched. */
function request(resource: string, operation: string, typed: Record<string, unknown> = {}) {
  const { method, url } = routeOf(resource, operation);
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  for (const property of propertiesOf(resource, operation)) {
    const send = property.routing?.send;
    const header = Object.keys(property.routing?.request?.headers ?? {})[0];
    const given = documentDefault(method, url, send, header);
    if (!(property.name in typed) && given === undefined) continue;
    const value = property.name in typed ? typed[property.name] : property.default;
    const parsed = send?.value.includes("JSON.parse") ? JSON.parse(String(value)) : value;
    if (send?.type === "query") query.set(send.property, String(parsed));
    else if (send?.type === "body") body[send.property] = parsed;
    for (const header of Object.keys(property.routing?.request?.headers ?? {})) headers[header] = String(value);
  }
  return { method, path: `${url}${query.size > 0 ? `?${query}` : ""}`, headers, body };
}

describe("a node for n8n generated from the 3.0 document", () => {
  const service = useTestService();
  let key: string;
  const send = async (call: ReturnType<typeof request>) => {
    const response = await service().fetch(call.path, {
      method: call.method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...call.headers },
      ...(call.method === "POST" && { body: JSON.stringify(call.body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    key = (await workspaceWithKey(service(), ["leads:read", "leads:write"])).key;
  });

  it("pre-fills no cursor, Idempotency-Key or free-text filter of any operation", () => {
    const prefilled = properties
      .filter((property) => property.routing?.send?.type === "query" || property.routing?.request?.headers)
      .filter((property) => property.type === "string" && property.default !== "" && property.default !== undefined);
    expect(prefilled.map((property) => `${property.displayOptions?.show?.operation} ${property.name}`)).toEqual([]);
  });

  it("creates leads run after run, and lists them all", async () => {
    for (const [name, email] of [
      ["Ada Lovelace", "ada@example.com"],
      ["Grace Hopper", "grace@example.com"],
    ]) {
      const call = request("Leads", "Leads Create", { name, email });
      expect(call.headers["Idempotency-Key"]).toBeUndefined();
      const created = await send(call);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ name, email, status: "new" });
    }
    const call = request("Leads", "Leads List");
    expect(call.path).toBe("/v1/leads?limit=20");
    const listed = await send(call);
    expect(listed.status).toBe(200);
    expect((listed.body.data as { name: string }[]).map((lead) => lead.name)).toEqual(["Grace Hopper", "Ada Lovelace"]);
  });
});
