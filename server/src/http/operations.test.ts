/**
 * The operations' own frame, with handlers of the test's making: what reaches the client when a handler fails in ways
 * the real handlers should not (the whole service is tested through its real handlers in tests/).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { createMetrics } from "../ops/metrics.ts";
import { compileContract } from "./contract-requests.ts";
import { compileResponseCheck } from "./contract-responses.ts";
import type { OperationHandlers } from "./handler-types.ts";
import { listOperations, loadOpenApiDocument } from "./openapi-document.ts";
import { contractOperations } from "./operations.ts";
import { requestContexts } from "./request-context.ts";
import { isStorableDateTime } from "./storable.ts";

const { doc } = loadOpenApiDocument();
const formats = { "date-time": isStorableDateTime };
const principal = { kind: "api_key", id: "key_1", workspaceId: "ws_1", scopes: [] } as const;

/** Every operation answers 204, but for the few a test gives a behaviour. */
function handlers(special: Record<string, () => Promise<unknown>>): OperationHandlers {
  const table: Record<string, () => Promise<unknown>> = {};
  for (const { operationId } of listOperations(doc))
    table[operationId] = special[operationId] ?? (async () => ({ status: 204 }));
  return table as OperationHandlers;
}

let server: Server;
let base: string;
beforeAll(async () => {
  const open = requestContexts({ logger: pino({ level: "silent" }), metrics: createMetrics() });
  const serve = contractOperations({
    doc,
    contract: compileContract(doc, { formats }),
    handlers: handlers({
      // A header Node refuses to write: not even the problem can be sent.
      Leads_get: async () => {
        throw new AppError("LEAD_NOT_FOUND", { headers: { "X-Broken": "a\nb" } });
      },
      // An answer the contract does not allow.
      Leads_list: async () => ({ status: 200, body: { object: "list", data: "nope" } }),
    }),
    authenticators: {
      ApiKeyBearer: () => async () => ({ principal }),
      SessionCookie: () => async () => ({ principal }),
    },
    budget: async () => undefined,
    checkResponse: compileResponseCheck(doc, { formats }),
    bodyLimitBytes: 1024,
    trustProxy: false,
  });
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    const mark = url.indexOf("?");
    const path = mark === -1 ? url : url.slice(0, mark);
    serve(req, res, open(req, res, path), path, mark === -1 ? "" : url.slice(mark + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("the contract's operations", () => {
  it("ends the connection, not the process, when not even the problem can be written", async () => {
    await expect(fetch(`${base}/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7`)).rejects.toThrow();
    const next = await fetch(`${base}/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7`, { method: "DELETE" });
    expect(next.status).toBe(204);
  });

  it("answers a reply that breaks the contract as a 500 problem when responses are checked", async () => {
    const response = await fetch(`${base}/v1/leads`);
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR" });
  });

  it("answers a body over the limit as a 413 problem before any handler runs", async () => {
    const response = await fetch(`${base}/v1/leads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(2048) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });
});
