/**
 * No request grows the validator's memory: the contract's app (createApp, handlers that answer at once, responses
 * validated as in tests and development, where the validator keeps the most) takes 10,000 ordinary
 * `POST /v1/leads`, then 10,000 whose `Content-Type: application/json; x=<n>` is new each time, and the heap after
 * each (after a full collection) is printed side by side. Target: the second leaves the heap within 5 MB of the
 * first. Without patches/express-openapi-validator+5.6.2.patch every new parameter compiled and kept a validator.
 *
 *   npm run bench:validator-memory
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { createApp } from "../../server/src/http/app.ts";
import { loadOpenApiDocument } from "../../server/src/http/openapi-document.ts";
import { createMetrics } from "../../server/src/ops/metrics.ts";
import { LEAD, stubHandlers } from "../helpers/stub-handlers.ts";

/** VALIDATOR_MEMORY_REQUESTS: fewer, to see the unpatched package grow (each new parameter costs it 0.1-0.2 s). */
const REQUESTS = Number(process.env.VALIDATOR_MEMORY_REQUESTS ?? 10_000);
const TARGET_MB = 5;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:validator-memory does)");

const openapi = loadOpenApiDocument();
const handlers = stubHandlers({ Leads_create: async () => ({ status: 201, body: LEAD }) });
const caller = { principal: { kind: "api_key" as const, id: "key_1", workspaceId: "ws_1", scopes: [] } };
const app = createApp({
  config: { trustProxy: false, bodyLimitBytes: 1024 * 1024, validateResponses: true },
  logger: pino({ level: "silent" }),
  metrics: createMetrics(),
  openapi,
  readiness: [],
  handlers,
  authenticators: { ApiKeyBearer: () => async () => caller, SessionCookie: () => async () => caller },
  budget: { spend: async () => undefined, hasRoom: () => false },
});
const server = createServer(app);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/leads`;

async function send(contentType: (i: number) => string): Promise<number> {
  for (let i = 0; i < REQUESTS; i++) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": contentType(i) },
      body: JSON.stringify({ name: "Ada" }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/leads: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

await send(() => "application/json"); // warm-up: first compiles, JIT
const ordinary = await send(() => "application/json");
const distinct = await send((i) => `application/json; x=${i}`);
server.close();
console.table([
  { requests: `${REQUESTS} × Content-Type: application/json`, "heap after (MB)": ordinary.toFixed(1) },
  { requests: `${REQUESTS} × application/json; x=<new each time>`, "heap after (MB)": distinct.toFixed(1) },
]);
const grown = distinct - ordinary;
console.log(
  `heap grew ${grown.toFixed(1)} MB over ${REQUESTS} distinct Content-Type parameters: ${grown <= TARGET_MB ? "PASS" : "MISS"} (target ≤ ${TARGET_MB} MB)`,
);
