/**
 * What integrators' usual tools send (axios inside n8n, Postman, curl): reserved characters left unencoded in a
 * query, spaces as `+` or `%20`, a misspelt property, a lead with no identifying field. Each gets the answer the
 * contract promises, with an error message a person can act on.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { json, workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService();

describe("queries and bodies as tools send them", () => {
  let key: string;
  const get = (path: string) => service().fetch(path, { headers: { authorization: `Bearer ${key}` } });
  const post = (path: string, body: unknown) => service().fetch(path, json(body, { authorization: `Bearer ${key}` }));
  beforeAll(async () => {
    key = (
      await workspaceWithKey(service(), ["leads:read", "leads:write", "conversations:read", "conversations:write"])
    ).key;
    expect((await post("/v1/leads", { email: "ada@example.com", name: "Ada" })).status).toBe(201);
  });

  it.each([
    "/v1/leads?email=ada@example.com",
    "/v1/leads?email=ada%40example.com",
    "/v1/leads?created_after=2026-01-01T00:00:00Z",
    "/v1/leads?created_after=2026-01-01T00%3A00%3A00Z",
  ])("answers %s with the lead", async (path) => {
    const response = await get(path);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect((JSON.parse(text) as { data: { email: string }[] }).data.map((lead) => lead.email)).toContain(
      "ada@example.com",
    );
  });

  it.each(["Ada+Lovelace", "Ada%20Lovelace"])("reads a space written as %s", async (written) => {
    const lead = (await (await post("/v1/leads", { name: "For a conversation" })).json()) as { id: string };
    const created = await post("/v1/conversations", { lead_id: lead.id, subject: "Hi", assignee: "Ada Lovelace" });
    expect(created.status).toBe(201);
    const response = await get(`/v1/conversations?assignee=${written}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: { assignee: string }[] };
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.every((conversation) => conversation.assignee === "Ada Lovelace")).toBe(true);
  });

  it("names an unknown property as unknown", async () => {
    const response = await post("/v1/leads", { nam: "Ada" });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: { path: string; message: string }[] };
    expect(problem.errors).toContainEqual({ path: "body.nam", message: "unknown property `nam`" });
  });

  it("says which fields a lead needs when it has none of them", async () => {
    const response = await post("/v1/leads", { company: "Analytical Engines Ltd" });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: { path: string; message: string }[] };
    expect(problem.errors).toEqual([
      { path: "body", message: "must have at least one of `email`, `phone`, `name`, `external_id`" },
    ]);
  });
});
