/**
 * The consumer projects of the package test: one scenario that really uses both packages (an SDK client against a
 * node:http server it starts, a message signed and verified), written as ESM, as CommonJS and as TypeScript, and a
 * CommonJS Jest test of the verifier. Each file is valid as it stands in a project outside the monorepo.
 */

/** The scenario's body, valid JavaScript and valid strict TypeScript alike. It prints one JSON line. */
const SCENARIO = `
async function main() {
  let agent = "";
  const server = createServer((req, res) => {
    agent = String(req.headers["user-agent"]);
    if (req.method === "GET" && req.url === "/v1/leads") {
      res.writeHead(200, { "content-type": "application/json", "request-id": "req_1" });
      res.end(JSON.stringify({
        object: "list",
        data: [{ id: "lead_1", object: "lead", email: "ada@example.com" }],
        has_more: false,
        next_cursor: null,
      }));
    } else {
      res.writeHead(504, { "content-length": "0" }); // a gateway's empty 504
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  try {
    const client = createClient({ apiKey: "sk_test_1", baseUrl: "http://127.0.0.1:" + port, maxRetries: 0 });
    const listed = await client.GET("/v1/leads");
    if (listed.error) throw new Error("unexpected error " + listed.error.code);
    const emails = listed.data.data.map((lead) => lead.email);
    let paged = 0;
    for await (const lead of client.paginate("/v1/leads")) paged += lead.id === "lead_1" ? 1 : 0;
    const failed = await client.GET("/v1/events");
    const code = failed.error ? failed.error.code : "none";

    const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
    const payload = JSON.stringify({ id: "evt_1", type: "lead.captured", data: { object: { id: "lead_1" } } });
    const headers = await sign({ payload, secret });
    const event = await verifyWebhook({ payload, headers, secret });
    const express = await verifyExpressRequest({ body: Buffer.from(payload), headers }, { secret });
    let refused = "";
    try {
      await verifyWebhook({ payload: payload + " ", headers, secret });
    } catch (error) {
      refused = error instanceof WebhookVerificationError ? error.reason : "another error";
    }
    console.log(JSON.stringify({ emails, paged, code, agent, event: event.id, express: express.id, refused }));
  } finally {
    server.close();
  }
}
`;

/** What every scenario prints, whatever its module system. */
export const SCENARIO_OUTPUT = {
  emails: ["ada@example.com"],
  paged: 1,
  code: "HTTP_504",
  event: "evt_1",
  express: "evt_1",
  refused: "no_matching_signature",
};

export const ESM_SCENARIO = `import { createServer } from "node:http";
import { createClient } from "@service/sdk";
import "@service/sdk/schema";
import { sign, verifyExpressRequest, verifyWebhook, WebhookVerificationError } from "@service/webhook-verifier";
${SCENARIO}
console.error("resolved " + import.meta.resolve("@service/sdk") + " " + import.meta.resolve("@service/webhook-verifier"));
await main();
`;

export const CJS_SCENARIO = `"use strict";
const { createServer } = require("node:http");
const { createClient } = require("@service/sdk");
require("@service/sdk/schema");
const { sign, verifyExpressRequest, verifyWebhook, WebhookVerificationError } = require("@service/webhook-verifier");
${SCENARIO}
console.error("resolved " + require.resolve("@service/sdk") + " " + require.resolve("@service/webhook-verifier"));
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** TypeScript: the scenario plus compile-time checks of the published declarations. */
export const TS_SCENARIO = `import { createServer, type IncomingMessage } from "node:http";
import { ApiError, type ApiProblem, createClient, type ErrorCode, type ServiceClient } from "@service/sdk";
import type { components, paths } from "@service/sdk/schema";
import {
  sign,
  type SignedHeaders,
  verifyExpressRequest,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "@service/webhook-verifier";
${SCENARIO}
// Compile-time checks: each line fails to compile if the published types are wrong.
export type Checks = [
  components["schemas"]["Lead"]["email"],
  paths["/v1/leads"]["get"],
  ServiceClient["paginate"],
  SignedHeaders["webhook-signature"],
  WebhookEvent["type"],
];
export function typed(req: IncomingMessage & { body: Buffer }, problem: ApiProblem): Promise<WebhookEvent> {
  const known: Extract<ErrorCode, "RATE_LIMITED"> = "RATE_LIMITED";
  const open: ErrorCode = "A_CODE_ADDED_LATER";
  const code: string = problem.code;
  void [known, open, code, ApiError];
  // verifyExpressRequest takes Node's request (as Express hands it over) under every moduleResolution.
  return verifyExpressRequest(req, { secret: "whsec_x" });
}
main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** A CommonJS test file for Jest: what a receiver's own test suite looks like. */
export const JEST_TEST = `"use strict";
const { sign, verifyWebhook, WebhookVerificationError } = require("@service/webhook-verifier");
const { createClient } = require("@service/sdk");

const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
const payload = JSON.stringify({ id: "evt_1", type: "lead.captured", data: { object: { id: "lead_1" } } });

test("Jest's resolver gives require() the node build", () => {
  expect(require.resolve("@service/webhook-verifier")).toMatch(/node\\.cjs$/);
  expect(require.resolve("@service/sdk")).toMatch(/index\\.cjs$/);
});

test("verifies a delivery signed with sign()", async () => {
  const headers = await sign({ payload, secret });
  await expect(verifyWebhook({ payload, headers, secret })).resolves.toMatchObject({ id: "evt_1" });
});

test("refuses a tampered delivery with WebhookVerificationError", async () => {
  const headers = await sign({ payload, secret });
  await expect(verifyWebhook({ payload: payload.replace("lead_1", "lead_2"), headers, secret })).rejects.toBeInstanceOf(
    WebhookVerificationError,
  );
});

test("creates an SDK client", () => {
  expect(typeof createClient({ apiKey: "sk_test", baseUrl: "http://127.0.0.1:1" }).paginate).toBe("function");
});
`;

/** The TypeScript projects: package type and compiler options. */
export const TS_PROJECTS = [
  { name: "ts-node16-cjs", type: "commonjs", compilerOptions: { module: "node16", moduleResolution: "node16" } },
  { name: "ts-node16-esm", type: "module", compilerOptions: { module: "node16", moduleResolution: "node16" } },
  { name: "ts-bundler", type: "module", compilerOptions: { module: "esnext", moduleResolution: "bundler" } },
] as const;
