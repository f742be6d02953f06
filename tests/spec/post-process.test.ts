import { describe, expect, it } from "vitest";
import { postProcess } from "../../spec/scripts/post-process.ts";

const webhookOp = { operationId: "WebhookEvents_leadCaptured", "x-webhook": "lead.captured", responses: {} };
const scopedOp = { operationId: "Leads_list", "x-required-scopes": ["leads:read"], security: [{ ApiKeyBearer: [] }] };

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
            Closed: { type: "object", properties: { a: { type: "string" } }, unevaluatedProperties: { not: {} } },
          },
        },
      },
    },
  ];

  it.each(cases)("$name", ({ given, want }) => {
    const before = structuredClone(given);
    const got = postProcess(given);
    expect(got).toEqual(want);
    expect(Object.keys(got)).toEqual(Object.keys(want));
    expect(given, "the input is not changed").toEqual(before);
  });
});
