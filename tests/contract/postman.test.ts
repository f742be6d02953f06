/**
 * A no-code tool's first contact: the 3.0 document converted to a Postman collection (openapi-to-postmanv2, with
 * the document's examples, its optional parameters left off as the reference tells Postman users to import it:
 * the document gives them no example, decision 0012) and run as it is with newman against a fresh server and an
 * all-scopes key. Nothing in
 * the collection is edited: the server is given the objects that the document's examples name, and nothing else.
 * No request may answer 5xx; every /v1 read and create must answer 2xx.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import newman from "newman";
import Converter from "openapi-to-postmanv2";
import { beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { json, workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const DOCUMENT = readFileSync(new URL("../../spec/generated/openapi.3.0.yaml", import.meta.url), "utf8");
type Schemas = Record<string, { example?: string }>;
const schemas = (YAML.parse(DOCUMENT) as { components: { schemas: Schemas } }).components.schemas;
const example = (name: string) => schemas[name]?.example as string;
const second = (id: string) => `${id.slice(0, -2)}ZZ`;

async function convert(): Promise<object> {
  return await new Promise((resolve, reject) => {
    Converter.convertV2(
      { type: "string", data: DOCUMENT },
      { parametersResolution: "Example", enableOptionalParameters: false },
      (error, result) => {
        const output = result?.result ? result.output?.[0] : undefined;
        if (error || !output) reject(error ?? new Error(result?.reason ?? "conversion failed"));
        else resolve(output.data);
      },
    );
  });
}

interface Execution {
  item: { name: string };
  request: { method: string; url: { getPath(): string } };
  response?: { code: number; text(): string };
  requestError?: Error;
}

async function run(collection: object, baseUrl: string, token: string): Promise<Execution[]> {
  return await new Promise((resolve, reject) => {
    newman.run(
      {
        collection,
        envVar: [
          { key: "base_url", value: baseUrl },
          { key: "baseUrl", value: baseUrl },
          { key: "bearerToken", value: token },
        ],
        reporters: [],
        timeoutRequest: 15_000,
      },
      (error: Error | null, summary: newman.NewmanRunSummary) =>
        error ? reject(error) : resolve(summary.run.executions as unknown as Execution[]),
    );
  });
}

describe("the OpenAPI 3.0 document imported into Postman and run with newman", () => {
  const service = useTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", TRUST_PROXY: "loopback" });
  let token: string;

  /** The objects the document's examples name, made through the API and given those ids. */
  beforeAll(async () => {
    const { key, workspaceId } = await workspaceWithKey(service(), ALL_SCOPES);
    token = key;
    const pool = service().service.db.pool;
    const create = async (path: string, body: object) => {
      const response = await service().fetch(path, json(body, { authorization: `Bearer ${key}` }));
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const rename = (table: string, from: string, to: string) =>
      pool.query(`UPDATE ${table} SET id = $2 WHERE id = $1`, [from, to]);
    for (const id of [example("LeadId"), second(example("LeadId"))]) {
      await rename("leads", await create("/v1/leads", { name: "Seed" }), id);
    }
    await pool.query("UPDATE events SET id = $1 WHERE id = (SELECT min(id) FROM events WHERE workspace_id = $2)", [
      example("EventId"),
      workspaceId,
    ]);
    await rename(
      "conversations",
      await create("/v1/conversations", { lead_id: example("LeadId"), subject: "Seed" }),
      example("ConversationId"),
    );
    await rename(
      "messages",
      await create(`/v1/conversations/${example("ConversationId")}/messages`, {
        author: { type: "agent", id: "agent@example.com" },
        body: "Seed",
      }),
      example("MessageId"),
    );
    await rename("tickets", await create("/v1/tickets", { subject: "Seed" }), example("TicketId"));
    // Another key than the create example's (which would be taken), with the options its update example keeps.
    const definition = { object_type: "lead", key: "seed_plan", label: "Seed", type: "enum" };
    await rename(
      "attribute_definitions",
      await create("/v1/attribute-definitions", { ...definition, options: ["free", "pro", "enterprise"] }),
      example("AttributeDefinitionId"),
    );
    for (const id of [example("WebhookId"), second(example("WebhookId"))]) {
      await rename(
        "webhooks",
        await create("/v1/webhooks", { url: "https://hooks.example.com/seed", events: ["ticket.updated"] }),
        id,
      );
    }
    await pool.query(
      `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, attempt_count)
       VALUES ($1, $2, $3, $4, 'lead.captured', '{}', 'failed', 1)`,
      [example("DeliveryId"), workspaceId, example("WebhookId"), example("EventId")],
    );
  });

  it("answers no request with 5xx, and every /v1 read and create with 2xx", { timeout: 120_000 }, async () => {
    const executions = await run(await convert(), service().url, token);
    const answers = executions.map((execution) => ({
      request: `${execution.request.method} ${execution.request.url.getPath()}`,
      status: execution.response?.code ?? 0,
      body: execution.response?.text().slice(0, 200) ?? String(execution.requestError),
    }));
    expect(answers.length).toBeGreaterThanOrEqual(50);
    expect(answers.filter((answer) => answer.status === 0 || answer.status >= 500)).toEqual([]);
    const v1 = answers.filter(({ request }) => / \/v1\//.test(request) && /^(GET|POST) /.test(request));
    expect(v1.length).toBeGreaterThan(20);
    // And it runs the document in order: the update's example (`enabled: false`) disables the example subscription
    // before its recover, which the contract refuses with a 409 (enable it first) rather than send into a void.
    const disabledFirst = (answer: (typeof v1)[number]) =>
      answer.request.endsWith("/recover") && answer.status === 409 && answer.body.includes("INVALID_STATE_TRANSITION");
    // The collection runs with a live key, which the operations on test data refuse as they document.
    const liveRefused = (answer: (typeof v1)[number]) =>
      answer.request.includes(" /v1/test-data/") && answer.status === 403 && answer.body.includes("TEST_MODE_ONLY");
    const unexpected = (answer: (typeof v1)[number]) =>
      (answer.status < 200 || answer.status >= 300) && !disabledFirst(answer) && !liveRefused(answer);
    expect(v1.filter(unexpected)).toEqual([]);
  });
});

describe("newman on Node 24", () => {
  it("loads without a deprecation warning (patches/newman+6.2.2.dev.patch)", () => {
    // newman 6.2.2 copied fs's functions by reading every property of fs, fs.F_OK's deprecated accessor included.
    const loaded = spawnSync(process.execPath, ["-e", 'require("newman/lib/run/secure-fs.js"); require("newman")'], {
      encoding: "utf8",
    });
    expect(loaded.status).toBe(0);
    expect(loaded.stderr).toBe("");
  });
});
