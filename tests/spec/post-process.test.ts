import { describe, expect, it } from "vitest";
import { postProcess, withoutUnusedComponents } from "../../spec/scripts/post-process.ts";

const webhookOp = { operationId: "WebhookEvents_leadCaptured", "x-webhook": "lead.captured", responses: {} };
const scopedOp = { operationId: "Leads_list", "x-required-scopes": ["leads:read"], security: [{ ApiKeyBearer: [] }] };

/** The pattern of text PostgreSQL stores (post-process.ts). */
const TEXT = "^[^\\u0000\\uD800-\\uDFFF]*$";

describe("postProcess", () => {
  const cases = [
    {
      name: "moves x-webhook operations from paths to the 3.1 webhooks section, after paths",
      given: { openapi: "3.1.0", paths: { "/__webhooks__/lead.captured": { post: webhookOp } }, components: {} },
      want: {
        openapi: "3.1.0",
        paths: {},
        webhooks: { "lead.captured": { post: { operationId: "WebhookEvents_leadCaptured", responses: {} } } },
        components: {},
      },
    },
    {
      name: "uses x-webhooks in 3.0, which has no webhooks section",
      given: { openapi: "3.0.0", paths: { "/__webhooks__/lead.captured": { post: webhookOp } } },
      want: {
        openapi: "3.0.0",
        paths: {},
        "x-webhooks": { "lead.captured": { post: { operationId: "WebhookEvents_leadCaptured", responses: {} } } },
      },
    },
    {
      name: "turns x-required-scopes into the 3.1 security requirement",
      given: { openapi: "3.1.0", paths: { "/v1/leads": { get: scopedOp } } },
      want: {
        openapi: "3.1.0",
        paths: { "/v1/leads": { get: { ...scopedOp, security: [{ ApiKeyBearer: ["leads:read"] }] } } },
      },
    },
    {
      name: "leaves 3.0 security alone (3.0 has scopes only for OAuth2)",
      given: { openapi: "3.0.0", paths: { "/v1/leads": { get: scopedOp } } },
      want: { openapi: "3.0.0", paths: { "/v1/leads": { get: scopedOp } } },
    },
    {
      name: "inlines a nullable enum reference in 3.0, with null among the values",
      given: {
        openapi: "3.0.0",
        paths: {},
        components: {
          schemas: {
            Reason: { type: "string", enum: ["a", "b"], description: "why" },
            Hook: {
              type: "object",
              properties: { reason: { allOf: [{ $ref: "#/components/schemas/Reason" }], nullable: true } },
            },
          },
        },
      },
      want: {
        openapi: "3.0.0",
        paths: {},
        components: {
          schemas: {
            Reason: { type: "string", enum: ["a", "b"], description: "why" },
            Hook: {
              type: "object",
              properties: { reason: { type: "string", enum: ["a", "b", null], nullable: true } },
            },
          },
        },
      },
    },
    {
      name: "writes an open map as additionalProperties in 3.1, leaving sealed objects sealed",
      given: {
        openapi: "3.1.0",
        paths: {},
        components: {
          schemas: {
            Attributes: { type: "object", unevaluatedProperties: {} },
            Closed: { type: "object", properties: { a: { type: "string" } }, unevaluatedProperties: { not: {} } },
          },
        },
      },
      want: {
        openapi: "3.1.0",
        paths: {},
        components: {
          schemas: {
            Attributes: { type: "object", additionalProperties: {} },
            Closed: {
              type: "object",
              properties: { a: { type: "string", pattern: TEXT } },
              unevaluatedProperties: false,
            },
          },
        },
      },
    },
    {
      name: "writes a closed object as additionalProperties: false in 3.0",
      given: {
        openapi: "3.0.0",
        paths: {},
        components: { schemas: { Closed: { type: "object", additionalProperties: { not: {} } } } },
      },
      want: {
        openapi: "3.0.0",
        paths: {},
        components: { schemas: { Closed: { type: "object", additionalProperties: false } } },
      },
    },
    {
      name: "marks query parameters allowReserved, and an operation without authentication security: []",
      given: {
        openapi: "3.0.0",
        paths: {
          "/api/auth/register": { post: { operationId: "Auth_register", security: [{}] } },
          "/v1/leads": {
            get: {
              operationId: "Leads_list",
              parameters: [{ name: "status", in: "query", schema: { type: "string", enum: ["new", "won"] } }],
            },
          },
        },
      },
      want: {
        openapi: "3.0.0",
        paths: {
          "/api/auth/register": { post: { operationId: "Auth_register", security: [] } },
          "/v1/leads": {
            get: {
              operationId: "Leads_list",
              parameters: [
                {
                  name: "status",
                  in: "query",
                  schema: { type: "string", enum: ["new", "won"] },
                  allowReserved: true,
                },
              ],
            },
          },
        },
      },
    },
    {
      name: "turns x-required-any-of into anyOf of required lists",
      given: {
        openapi: "3.1.0",
        paths: {},
        components: { schemas: { Lead: { type: "object", "x-required-any-of": ["email", "name"] } } },
      },
      want: {
        openapi: "3.1.0",
        paths: {},
        components: { schemas: { Lead: { type: "object", anyOf: [{ required: ["email"] }, { required: ["name"] }] } } },
      },
    },
    {
      name: "says in a pattern the text and the date-times the server stores, where no rule of its own says more",
      given: {
        openapi: "3.1.0",
        paths: {},
        components: {
          schemas: {
            Text: { type: "string" },
            Id: { type: "string", pattern: "^lead_" },
            Status: { type: "string", enum: ["new"] },
            Email: { type: "string", format: "email" },
            At: { type: "string", format: "date-time" },
          },
        },
      },
      want: {
        openapi: "3.1.0",
        paths: {},
        components: {
          schemas: {
            Text: { type: "string", pattern: TEXT },
            Id: { type: "string", pattern: "^lead_" },
            Status: { type: "string", enum: ["new"] },
            Email: { type: "string", format: "email" },
            At: { type: "string", format: "date-time", pattern: expect.stringMatching(/^\^\(\?!0000\)/) },
          },
        },
      },
    },
    {
      name: "makes each branch of a nullable union nullable in 3.0, where nullable needs a type",
      given: {
        openapi: "3.0.0",
        paths: {},
        components: { schemas: { Scalar: { anyOf: [{ type: "number" }, { type: "boolean" }], nullable: true } } },
      },
      want: {
        openapi: "3.0.0",
        paths: {},
        components: {
          schemas: {
            Scalar: {
              anyOf: [
                { type: "number", nullable: true },
                { type: "boolean", nullable: true },
              ],
            },
          },
        },
      },
    },
  ];

  it.each(cases)("$name", ({ given, want }) => {
    const before = structuredClone(given);
    const got = postProcess(given);
    // Every document gets the API key as its default security.
    expect(got).toEqual({ ...want, security: [{ ApiKeyBearer: [] }] });
    expect(Object.keys(got)).toEqual([...Object.keys(want), "security"]);
    expect(given, "the input is not changed").toEqual(before);
  });
});

describe("withoutUnusedComponents", () => {
  it("keeps what paths and webhooks refer to, through other components, and drops the rest", () => {
    const doc = {
      openapi: "3.1.0",
      paths: { "/a": { get: { parameters: [{ $ref: "#/components/parameters/Used" }] } } },
      webhooks: { "x.y": { post: { requestBody: { $ref: "#/components/requestBodies/Hook" } } } },
      components: {
        parameters: { Used: { name: "u", in: "query", schema: { $ref: "#/components/schemas/Deep" } }, Copied: {} },
        requestBodies: { Hook: { content: {} } },
        schemas: { Deep: { type: "string" }, Orphan: { $ref: "#/components/schemas/Deep" } },
        securitySchemes: { ApiKeyBearer: { type: "http", scheme: "bearer" } },
      },
    };
    const out = withoutUnusedComponents(doc);
    expect(out.components).toEqual({
      parameters: { Used: doc.components.parameters.Used },
      requestBodies: { Hook: { content: {} } },
      schemas: { Deep: { type: "string" } },
      securitySchemes: doc.components.securitySchemes,
    });
    expect(doc.components.schemas.Orphan).toBeDefined();
  });
});

describe("examples", () => {
  const doc = {
    openapi: "3.1.0",
    paths: {
      "/v1/leads/{lead_id}": {
        get: {
          operationId: "Leads_get",
          security: [{ ApiKeyBearer: [] }],
          responses: Object.fromEntries(
            ["401", "403", "404", "429"].map((status) => [
              status,
              { content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } },
            ]),
          ),
        },
      },
      "/v1/leads": {
        get: {
          operationId: "Leads_list",
          parameters: [{ $ref: "#/components/parameters/ListQuery.cursor" }],
          responses: {
            "200": {
              content: { "application/json": { example: { data: [{ id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7" }] } } },
            },
          },
        },
      },
    },
    components: { parameters: { "ListQuery.cursor": { name: "cursor", in: "query", schema: { type: "string" } } } },
  };

  it("gives each error answer an example of its own status and code, with the catalog's title", async () => {
    const catalog = (await import("../../spec/error-catalog.json", { with: { type: "json" } })).default;
    const got = postProcess(doc) as typeof doc;
    const responses = got.paths["/v1/leads/{lead_id}"].get.responses as unknown as Record<
      string,
      { content: Record<string, { example: Record<string, unknown> }> }
    >;
    const codes = Object.fromEntries(
      Object.entries(responses).map(([status, response]) => [
        status,
        response.content["application/problem+json"]?.example,
      ]),
    );
    expect(Object.fromEntries(Object.entries(codes).map(([status, example]) => [status, example?.code]))).toEqual({
      "401": "UNAUTHENTICATED",
      "403": "INSUFFICIENT_SCOPE",
      "404": "LEAD_NOT_FOUND",
      "429": "RATE_LIMITED",
    });
    for (const [status, example] of Object.entries(codes)) {
      expect(example?.status).toBe(Number(status));
      expect(example?.title).toBe(catalog[example?.code as keyof typeof catalog].title);
    }
  });

  it("gives a 400 a named example of each refusal no schema says, with the request that meets it", () => {
    const refusal = {
      summary: "`cursor` with `after_sequence`",
      query: "after_sequence=0&cursor=c",
      errors: [{ path: "query.cursor", message: "cannot be combined with after_sequence" }],
    };
    const problem = { content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } };
    const got = postProcess({
      openapi: "3.1.0",
      paths: {
        "/v1/events": {
          get: {
            operationId: "Events_list",
            parameters: [{ $ref: "#/components/parameters/ListQuery.cursor" }],
            "x-refusals": [refusal],
            responses: { "400": { description: "400.", ...problem } },
          },
        },
      },
    }) as { paths: Record<string, { get: Record<string, unknown> & { responses: Record<string, never> } }> };
    const operation = got.paths["/v1/events"]?.get;
    expect(operation?.["x-refusals"]).toBeUndefined();
    const answer = operation?.responses["400"] as unknown as {
      description: string;
      content: Record<string, { examples: object }>;
    };
    const examples = answer.content["application/problem+json"]?.examples as Record<string, Record<string, unknown>>;
    expect(Object.keys(examples)).toEqual([
      "a_field_that_fails_its_schema",
      "cursor_with_after_sequence",
      "a_cursor_that_this_list_did_not_give",
      "a_query_parameter_that_the_operation_does_not_list",
    ]);
    expect(examples.cursor_with_after_sequence).toMatchObject({
      "x-request": { query: refusal.query },
      value: { status: 400, code: "VALIDATION_FAILED", errors: refusal.errors },
    });
    expect(examples.a_cursor_that_this_list_did_not_give?.value).toMatchObject({ code: "INVALID_CURSOR" });
    expect(answer.description).toBe(
      "400. Refused beyond the schemas: `cursor` with `after_sequence`; a cursor that this list did not give; a query parameter that the operation does not list.",
    );
  });

  it("gives a list's cursor no example: a tool would send it on every call", () => {
    const got = postProcess(structuredClone(doc)) as typeof doc;
    expect(got.paths["/v1/leads"].get.parameters).toEqual([{ $ref: "#/components/parameters/ListQuery.cursor" }]);
    const cursor = got.components.parameters["ListQuery.cursor"] as {
      name: string;
      example?: string;
      allowReserved?: boolean;
    };
    expect(cursor.name).toBe("cursor");
    expect(cursor?.allowReserved).toBe(true);
    expect(cursor?.example).toBeUndefined();
  });
});
