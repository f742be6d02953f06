/**
 * The OpenAPI 2.0 (Swagger) document, as Power Automate's custom connectors import it: served beside the 3.1 and 3.0
 * documents, valid Swagger 2.0 (swagger-parser), every operation of the contract kept with its authentication, the
 * subscription create usable as a webhook trigger (a notification URL, 201 with `Location` to delete), and imported
 * into a Postman collection with every operation.
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import Converter from "openapi-to-postmanv2";
import { beforeAll, describe, expect, it } from "vitest";
import { json, workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

// biome-ignore lint/suspicious/noExplicitAny: the documents are read as plain JSON, walked by the test's own checks
type Json = Record<string, any>;
const METHODS = ["get", "post", "put", "patch", "delete"];

/** `METHOD path operationId` of every operation of a document. */
function operations(doc: Json): string[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => `${method.toUpperCase()} ${path} ${(operation as Json).operationId}`),
  );
}

describe("the OpenAPI 2.0 document", () => {
  const service = useTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
  let swagger: Json;
  let openapi30: Json;

  beforeAll(async () => {
    const get = async (path: string) => {
      const response = await service().fetch(path);
      expect(response.status).toBe(200);
      return (await response.json()) as Json;
    };
    swagger = await get("/swagger.json");
    openapi30 = await get("/openapi.3.0.json");
    expect((await service().fetch("/swagger.yaml")).headers.get("content-type")).toMatch(/yaml/);
  });

  it("is valid Swagger 2.0 and keeps every operation of the contract", async () => {
    expect(swagger.swagger).toBe("2.0");
    await SwaggerParser.validate(structuredClone(swagger) as unknown as Parameters<typeof SwaggerParser.validate>[0]);
    expect(operations(swagger).sort()).toEqual(operations(openapi30).sort());
    expect(openapi30.openapi).toMatch(/^3\.0\./);
  });

  it("keeps Bearer authentication on every /v1 operation", () => {
    expect(swagger.securityDefinitions.ApiKeyBearer).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
    const v1 = Object.entries(swagger.paths as Json).filter(([path]) => path.startsWith("/v1/"));
    const unsecured = v1.flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([method]) => METHODS.includes(method))
        .filter(([, operation]) => {
          const security = ((operation as Json).security ?? swagger.security) as Json[];
          return !security.some((requirement) => "ApiKeyBearer" in requirement);
        })
        .map(([method]) => `${method} ${path}`),
    );
    expect(unsecured).toEqual([]);
  });

  it("offers the subscription as a webhook trigger whose Location deletes it", async () => {
    const triggers = Object.entries(swagger.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([, operation]) => (operation as Json)["x-ms-trigger"] !== undefined)
        .map(([method, operation]) => ({ path, method, operation: operation as Json })),
    );
    expect(triggers.map(({ method, path }) => `${method} ${path}`)).toEqual(["post /v1/webhooks"]);
    const { operation } = triggers[0] as { operation: Json };
    const body = (operation.parameters as Json[]).find((parameter) => parameter.in === "body") as Json;
    expect(body.schema.properties.url).toMatchObject({
      type: "string",
      "x-ms-notification-url": true,
      "x-ms-visibility": "internal",
    });
    expect(operation.responses["201"].headers.Location).toBeDefined();
    expect(swagger.paths["/v1/webhooks/{webhook_id}"].delete).toBeDefined();

    // What Power Automate does with it: subscribe with its callback, later unsubscribe at the Location.
    const { key } = await workspaceWithKey(service(), ["webhooks:write", "webhooks:read"]);
    const auth = { authorization: `Bearer ${key}` };
    const created = await service().fetch(
      "/v1/webhooks",
      json(
        { url: "https://prod-00.westeurope.logic.azure.com/workflows/1/triggers/manual", events: ["lead.captured"] },
        auth,
      ),
    );
    expect(created.status).toBe(201);
    const location = created.headers.get("location") as string;
    expect(location).toMatch(/^\/v1\/webhooks\/wh_/);
    expect((await service().fetch(location, { method: "DELETE", headers: auth })).status).toBe(204);
    expect((await service().fetch(location, { headers: auth })).status).toBe(404);
  });

  it("imports into a Postman collection with every operation", async () => {
    const collection = await new Promise<Json>((resolve, reject) => {
      Converter.convert({ type: "json", data: structuredClone(swagger) }, {}, (error, result) => {
        const output = result?.result ? result.output?.[0] : undefined;
        if (error || !output) reject(error ?? new Error(result?.reason ?? "conversion failed"));
        else resolve(output.data as Json);
      });
    });
    const requests: string[] = [];
    const walk = (items: Json[]) => {
      for (const item of items) {
        if (item.item) walk(item.item as Json[]);
        else requests.push(`${item.request.method}`);
      }
    };
    walk(collection.item as Json[]);
    expect(requests.length).toBe(operations(swagger).length);
  });
});
