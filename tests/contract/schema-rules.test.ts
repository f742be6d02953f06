/**
 * One verdict, generated from the three documents (issue 41): what Schemathesis's `positive_data_acceptance` and
 * `negative_data_rejection` checks ask, asked here (Schemathesis is a Python tool from PyPI, which these machines
 * cannot reach, and neither Debian nor the npm registry has it or an equivalent: tests/README.md).
 *
 * For every operation, values on both sides of each rule of its body's fields and of its parameters
 * (schema-rules.ts), plus seeded ones, are judged by each document as an independent tool reads it
 * (contract-judges.ts) and sent to the server. The documents must agree with each other, and the server with them:
 * a request they all take is not refused with a 400, unless the operation's 400 examples document that refusal
 * (`x-request` says how to meet it: those are sent first, and must answer as their example); a request they refuse is
 * a 400 naming its field. Nothing may answer 5xx.
 *
 *   npx vitest run tests/contract/schema-rules.test.ts              a new seed, printed
 *   SCHEMA_RULES_SEED=<seed> npx vitest run tests/contract/schema-rules.test.ts   the same values again
 */
import { beforeAll, describe, expect, it } from "vitest";
import { json, registerAndVerify, type SignedIn, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { DOCUMENT_NAMES, type Json, judgeOf, readDocument } from "../helpers/contract-judges.ts";
import {
  bodyCases,
  type Operation,
  operationsOf,
  parameterCases,
  type RuleCase,
  seeded,
  seededCases,
} from "../helpers/schema-rules.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const docs = { "3.1": readDocument("3.1"), "3.0": readDocument("3.0"), "2.0": readDocument("2.0") };
const judges = Object.fromEntries(DOCUMENT_NAMES.map((name) => [name, judgeOf(name, docs[name])]));
const SEED = Number(process.env.SCHEMA_RULES_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`schema rules: seed ${SEED} (SCHEMA_RULES_SEED=${SEED} repeats this run's values)`);
const random = seeded(SEED);

/**
 * What Swagger 2.0 cannot say (it has no `anyOf`, `oneOf` or `not`), by field: there the 2.0 document takes what the
 * 3.x documents and the server refuse, and says the rule in the field's description instead.
 */
const INEXPRESSIBLE_IN_2_0: Record<string, string> = {
  "body.custom_attributes": "a depth, said in 3.x as a union of levels (AttributeValue): 2.0 has no union",
};

/** The refusals an operation's 400 documents beyond its schemas: the request that meets each, and its answer. */
function documentedRefusals(template: string, method: string) {
  const media = docs["3.1"].paths[template][method].responses["400"]?.content["application/problem+json"];
  return Object.values((media?.examples ?? {}) as Json)
    .filter((example) => example["x-request"])
    .map((example) => ({
      summary: String(example.summary),
      request: example["x-request"] as Json,
      answer: example.value as Json,
    }));
}

const service = useTestService({
  TRUST_PROXY: "loopback",
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  API_RATE_LIMIT_PER_MINUTE: "1000000",
});
let key: string;
/** A test mode key, for the operations a live key is refused (`x-test-mode-only`). */
let testKey: string;
let session: SignedIn;
/** Objects the documented refusals need to exist (a webhook's stats, a conversation's update), by path parameter. */
const fixtures: Record<string, string> = {};

beforeAll(async () => {
  key = (await workspaceWithKey(service(), ALL_SCOPES)).key;
  testKey = (await workspaceWithKey(service(), ALL_SCOPES, "test")).key;
  const email = uniqueEmail("rules");
  await registerAndVerify(service(), email);
  session = await signIn(service(), email);
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const response = await service().fetch(path, json(body, headers));
    expect(response.status, path).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const bearer = { authorization: `Bearer ${key}` };
  const lead = await post("/v1/leads", { name: "Rules" }, bearer);
  fixtures.conversation_id = await post("/v1/conversations", { lead_id: lead, subject: "Rules" }, bearer);
  const hook = { url: "https://1.1.1.1/hooks", events: ["lead.captured"] };
  fixtures.webhook_id = await post("/v1/webhooks", hook, bearer);
  fixtures.workspace_webhook_id = await post("/api/workspace/webhooks", hook, {
    cookie: session.cookie,
    "x-csrf-token": session.csrf,
  });
});

/** The operation's path: the case's values, else a fixture (`fixtures`), else the document's example ids. */
function pathOf(operation: Operation, values: Record<string, string> = {}, useFixtures = false): string {
  const parameters = (docs["3.1"].paths[operation.template][operation.method].parameters ?? []) as Json[];
  return operation.template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const fixture = name === "webhook_id" && operation.template.startsWith("/api/") ? "workspace_webhook_id" : name;
    const example = parameters.find((parameter) => parameter.name === name)?.example;
    const value = values[name] ?? (useFixtures ? fixtures[fixture] : undefined) ?? String(example);
    return encodeURIComponent(value);
  });
}

/** Sends a case: its body, or the operation's example where it takes one (a parameter's case is about the parameter). */
async function send(operation: Operation, request: { body?: unknown; query?: string; path?: string }) {
  if (request.body === undefined && operation.example !== undefined) request = { ...request, body: operation.example };
  const headers: Record<string, string> = {};
  const testOnly = docs["3.1"].paths[operation.template][operation.method]["x-test-mode-only"] === true;
  if (operation.scheme === "ApiKeyBearer") headers.authorization = `Bearer ${testOnly ? testKey : key}`;
  if (operation.scheme === "SessionCookie")
    Object.assign(headers, { cookie: session.cookie, "x-csrf-token": session.csrf });
  const init =
    request.body === undefined
      ? {
          method: operation.method.toUpperCase(),
          headers: { ...json(null).headers, ...headers } as Record<string, string>,
        }
      : json(request.body, headers, operation.method.toUpperCase());
  if (request.body === undefined) delete (init.headers as Record<string, string>)["content-type"];
  const response = await service().fetch(`${request.path}${request.query ? `?${request.query}` : ""}`, init);
  const text = await response.text();
  const problem =
    (response.headers.get("content-type") ?? "").includes("json") && text ? (JSON.parse(text) as Json) : {};
  return { status: response.status, problem, text };
}

const operations = operationsOf(docs["3.1"]);
let judged = 0;

describe("the refusals that the documents' 400 examples document", () => {
  const refusals = operations.flatMap((operation) =>
    documentedRefusals(operation.template, operation.method).map((refusal) => ({ operation, ...refusal })),
  );
  it.each(refusals.map((refusal) => [`${refusal.operation.id}: ${refusal.summary}`, refusal] as const))(
    "%s answers as its example",
    async (_name, { operation, request, answer }) => {
      const { status, problem, text } = await send(operation, {
        path: pathOf(operation, {}, true),
        body: request.body,
        query: request.query,
      });
      expect(status, text).toBe(answer.status);
      expect(problem.code).toBe(answer.code);
      const paths = ((problem.errors ?? []) as Json[]).map((error) => error.path);
      expect(paths).toEqual(((answer.errors ?? []) as Json[]).map((error) => error.path));
    },
  );
});

describe("every rule of every operation, in the three documents and the server", () => {
  it.each(operations.map((operation) => [operation.id, operation] as const))("%s", async (_id, operation) => {
    const { template, method } = operation;
    const documented = documentedRefusals(template, method).map(({ answer }) => answer);
    const body = docs["3.1"].paths[template][method].requestBody?.content["application/json"]?.schema as
      | Json
      | undefined;
    const cases: RuleCase[] = [
      ...(body
        ? [...bodyCases(docs["3.1"], operation, body), ...seededCases(docs["3.1"], operation, body, random)]
        : []),
      ...parameterCases(docs["3.1"], operation),
    ];
    const disagreements: string[] = [];
    for (const item of cases) {
      const parameter = item.field.split(".")[1] as string;
      const verdicts = DOCUMENT_NAMES.map((name) => {
        const judge = judges[name] as ReturnType<typeof judgeOf>;
        if (item.body !== undefined) return judge.body(template, method, item.body);
        const known = ((docs[name].paths[template][method].parameters ?? []) as Json[]).length > 0;
        const text = item.path?.[parameter] ?? decodeURIComponent(item.query?.split("=")[1] ?? "");
        return known && parameter !== "not_a_parameter" ? judge.parameter(template, method, parameter, text) : false;
      });
      const [v31, v30, v20] = verdicts;
      if (v31 !== v30 || (v20 !== v31 && !(item.field in INEXPRESSIBLE_IN_2_0 && v20))) {
        disagreements.push(`${item.name}: the documents disagree (3.1 ${v31}, 3.0 ${v30}, 2.0 ${v20})`);
      }
      const { status, problem, text } = await send(operation, {
        path: pathOf(operation, item.path),
        ...(item.body === undefined ? {} : { body: item.body }),
        ...(item.query === undefined ? {} : { query: item.query }),
      });
      judged += 1;
      const errors = ((problem.errors ?? []) as Json[]).map((error) => String(error.path));
      const names = (path: string) =>
        path === item.field || path.startsWith(`${item.field}.`) || item.field.startsWith(`${path}.`);
      const isDocumented = documented.some(
        (answer) =>
          answer.code === problem.code &&
          ((answer.errors ?? []) as Json[]).every((error) => errors.includes(String(error.path))),
      );
      if (status >= 500) disagreements.push(`${item.name}: ${status} ${text.slice(0, 160)}`);
      else if (v31 && status === 400 && !isDocumented) {
        disagreements.push(`${item.name}: valid in the documents, refused: ${text.slice(0, 200)}`);
      } else if (!v31 && status !== 400)
        disagreements.push(`${item.name}: invalid in the documents, answered ${status}`);
      else if (!v31 && !errors.some(names))
        disagreements.push(`${item.name}: refused without naming ${item.field}: ${text.slice(0, 200)}`);
    }
    expect(disagreements).toEqual([]);
  });

  it("judged every operation's rules", () => {
    console.log(`schema rules: ${judged} requests judged by 3 documents, seed ${SEED}`);
    expect(judged).toBeGreaterThan(operations.length * 5);
  });
});
