import { describe, expect, it } from "vitest";
import { compileContract } from "./contract-requests.ts";
import { compileResponseCheck } from "./contract-responses.ts";
import { loadOpenApiDocument } from "./openapi-document.ts";
import { isStorableDateTime } from "./storable.ts";

const { doc } = loadOpenApiDocument();
const formats = { "date-time": isStorableDateTime };
const contract = compileContract(doc, { formats });
const checkResponse = compileResponseCheck(doc, { formats });
const schemas = (doc.components as { schemas: Record<string, { examples?: unknown[] }> }).schemas;
const lead = schemas.Lead?.examples?.[0] as Record<string, unknown>;

const getLead = contract.match("GET", "/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7").operation;
const deleteLead = contract.match("DELETE", "/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7").operation;
const listLeads = contract.match("GET", "/v1/leads").operation;

describe("the contract's response check", () => {
  it("passes the contract's own example of a lead, a page of them and a 204 without a body", () => {
    expect(lead).toMatchObject({ object: "lead" });
    expect(() => checkResponse(getLead, 200, lead)).not.toThrow();
    expect(() =>
      checkResponse(listLeads, 200, { object: "list", data: [lead, lead], has_more: true, next_cursor: "abc" }),
    ).not.toThrow();
    expect(() => checkResponse(deleteLead, 204, undefined)).not.toThrow();
  });

  it.each([
    ["a missing required field", getLead, 200, { ...lead, email: undefined }, "must have required property 'email'"],
    ["an unknown field", getLead, 200, { ...lead, secret: "x" }, "unevaluated properties"],
    ["a wrong type", getLead, 200, { ...lead, tags: "a,b" }, "/response/tags must be array"],
    ["a value outside its enum", getLead, 200, { ...lead, status: "sold" }, "/response/status"],
    [
      "a date-time PostgreSQL could not have given",
      getLead,
      200,
      { ...lead, created_at: "0000-01-01T00:00:00Z" },
      "format",
    ],
    [
      "a lead in a page that is not one",
      listLeads,
      200,
      { object: "list", data: [{ id: 1 }], has_more: false, next_cursor: null },
      "/response/data/0",
    ],
    // A status the operation does not name falls to its `default` response: a problem.
    ["a lead under a status the operation does not declare", getLead, 201, lead, "must have required property 'code'"],
    ["a body on a response without content", deleteLead, 204, { deleted: true }, "should have no body"],
    ["no body where the response has one", getLead, 200, undefined, "needs a body"],
    ["null where the response has a body", getLead, 200, null, "needs a body"],
  ])("refuses %s, naming the operation and what is wrong", (_, operation, status, body, detail) => {
    expect(() => checkResponse(operation, status, body)).toThrow(/The answer of Leads_\w+ breaks the contract/);
    expect(() => checkResponse(operation, status, body)).toThrow(detail);
  });
});
