/**
 * One schema, one verdict (issue 41): the cases found by hand where the validator, the service's other checks and
 * the documents disagreed. Each answer is the one the documents give; each case failed before its fix.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { json, workspaceWithKey } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", API_RATE_LIMIT_PER_MINUTE: "1000000" });
let key: string;
const auth = () => ({ authorization: `Bearer ${key}` });
const post = (path: string, body: unknown) => service().fetch(path, json(body, auth()));
const fieldsOf = (problem: Record<string, unknown>) => (problem.errors as { path: string }[]).map((e) => e.path);

beforeAll(async () => {
  key = (await workspaceWithKey(service(), ALL_SCOPES)).key;
});

describe("formats, read in full by every check", () => {
  it.each(["a..b@example.com", ".a@example.com", "a@b"])(
    "refuses %s as a lead's e-mail, alone and as a batch item",
    async (email) => {
      const problem = await expectProblem(await post("/v1/leads", { email }), 400, "VALIDATION_FAILED");
      expect(fieldsOf(problem)).toEqual(["body.email"]);
      const batch = await post("/v1/leads/batch", { match_on: "email", items: [{ email }] });
      expect(batch.status).toBe(200);
      const [item] = ((await batch.json()) as { data: { result: string; problem?: Record<string, unknown> }[] }).data;
      expect(item?.result).toBe("failed");
      expect(fieldsOf(item?.problem ?? { errors: [] })).toEqual(["body.items.0.email"]);
    },
  );

  it.each(["https://1.1.1.1/é", "https://1.1.1.1/a|b", "https://1.1.1.1:0/hooks", "https://1.1.1.1:/hooks"])(
    "refuses %s as a webhook URL",
    async (url) => {
      const response = await post("/v1/webhooks", { url, events: ["lead.captured"] });
      expect(fieldsOf(await expectProblem(response, 400, "VALIDATION_FAILED"))).toContain("body.url");
    },
  );

  it("takes the URLs and addresses the formats allow", async () => {
    expect((await post("/v1/leads", { email: "o'brien+tag@mail.example.co.uk" })).status).toBe(201);
    const url = "https://1.1.1.1:8443/hooks/%C3%A9?a=1";
    expect((await post("/v1/webhooks", { url, events: ["lead.captured"] })).status).toBe(201);
  });
});
