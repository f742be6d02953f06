import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import type { ApiProblem, ErrorCode } from "./errors.js";
import { json, problem, startServer, type TestServer } from "./test-server.js";
import { SDK_VERSION } from "./version.js";

// Bounds are generous on purpose: they tell "ended at once" from "waited 20 s", never measure speed.
const AT_ONCE_MS = 1_000;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lead = { email: "ada@example.com" };

describe("timeouts", () => {
  it("ends a call to a server that never answers at its timeout, with a TimeoutError", async () => {
    server = await startServer(() => undefined); // never answers
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url, timeoutMs: 300, maxRetries: 0 });
    const started = performance.now();
    await expect(client.GET("/v1/leads")).rejects.toMatchObject({ name: "TimeoutError" });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(1);
  });

  it("retries a timed-out attempt, then ends with the TimeoutError", async () => {
    server = await startServer(() => undefined);
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url, timeoutMs: 200, maxRetries: 2 });
    await expect(client.POST("/v1/leads", { body: lead })).rejects.toMatchObject({ name: "TimeoutError" });
    expect(server.requests).toHaveLength(3);
    // Every attempt of one write carries the same key.
    expect(new Set(server.requests.map((r) => r.headers["idempotency-key"])).size).toBe(1);
  });

  it("ends the whole call at its deadline, attempts and waits included", async () => {
    server = await startServer((_request, res) => problem(res, 503, "SERVICE_UNAVAILABLE", { "retry-after": "5" }));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url, deadlineMs: 300 });
    const started = performance.now();
    // The 5 s wait would pass the 300 ms deadline: the call ends with the 503 it has, without waiting.
    const { error } = await client.GET("/v1/leads");
    expect(error?.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(4_000);

    await server.close();
    server = await startServer(() => undefined);
    const hanging = createClient({ apiKey: "sk_test", baseUrl: server.url, deadlineMs: 300 });
    await expect(hanging.GET("/v1/leads")).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("cancellation", () => {
  it("ends a 20 s Retry-After wait at once when the caller aborts", async () => {
    server = await startServer((_request, res) => problem(res, 429, "RATE_LIMITED", { "retry-after": "20" }));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const controller = new AbortController();
    const call = client.GET("/v1/leads", { signal: controller.signal });
    const settled = call.then(
      () => "resolved",
      (error: unknown) => error,
    );
    await server.received(1);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the client is now waiting out Retry-After
    const abortedAt = performance.now();
    controller.abort();
    const outcome = await settled;
    const took = performance.now() - abortedAt;
    expect(outcome).toMatchObject({ name: "AbortError" });
    expect(took).toBeLessThan(AT_ONCE_MS);
    expect(server.requests).toHaveLength(1);
  });

  it("ends the wait at the caller's own AbortSignal.timeout (1.5 s against Retry-After 20)", async () => {
    server = await startServer((_request, res) => problem(res, 429, "RATE_LIMITED", { "retry-after": "20" }));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const started = performance.now();
    await expect(client.GET("/v1/leads", { signal: AbortSignal.timeout(1_500) })).rejects.toMatchObject({
      name: "TimeoutError",
    });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("cancels a request in flight", async () => {
    server = await startServer(() => undefined);
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const controller = new AbortController();
    const call = client.GET("/v1/leads", { signal: controller.signal });
    await server.received(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("retries", () => {
  it("does not retry a Retry-After above maxRetryAfterSeconds (61 > 60): the call ends with the 429", async () => {
    server = await startServer((_request, res) => problem(res, 429, "RATE_LIMITED", { "retry-after": "61" }));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const { data, error, response } = await client.GET("/v1/leads");
    expect(data).toBeUndefined();
    expect(response.status).toBe(429);
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", request_id: "req_test" });
    expect(response.headers.get("retry-after")).toBe("61");
    expect(server.requests).toHaveLength(1);
  });

  it("retries 409 IDEMPOTENCY_KEY_IN_USE with the same Idempotency-Key and body", async () => {
    server = await startServer((request, res, index) => {
      if (index === 0) return problem(res, 409, "IDEMPOTENCY_KEY_IN_USE", { "retry-after": "0" });
      json(res, 201, { id: "lead_1", object: "lead", ...JSON.parse(request.body) });
    });
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const { data, error } = await client.POST("/v1/leads", { body: lead });
    expect(error).toBeUndefined();
    expect(data?.id).toBe("lead_1");
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
    expect(second?.body).toBe(first?.body);
  });

  it.each([500, 502, 503, 504, 429])("retries %i and returns the answer that follows", async (status) => {
    server = await startServer((_request, res, index) =>
      index === 0 ? problem(res, status, "SERVICE_UNAVAILABLE", { "retry-after": "0" }) : json(res, 200, lead),
    );
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const { data } = await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: "lead_1" } } });
    expect(data?.email).toBe("ada@example.com");
    expect(server.requests).toHaveLength(2);
  });

  it("retries a connection cut before the answer", async () => {
    server = await startServer((_request, res, index) => {
      if (index === 0) res.socket?.destroy();
      else json(res, 200, lead);
    });
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const { data } = await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: "lead_1" } } });
    expect(data?.email).toBe("ada@example.com");
    expect(server.requests).toHaveLength(2);
  });

  it("gives up after maxRetries and returns the last answer as the error", async () => {
    server = await startServer((_request, res) => problem(res, 503, "SERVICE_UNAVAILABLE", { "retry-after": "0" }));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url, maxRetries: 2 });
    const { error } = await client.GET("/v1/leads");
    expect(error?.code).toBe("SERVICE_UNAVAILABLE");
    expect(server.requests).toHaveLength(3);
  });

  it("never retries a 400", async () => {
    server = await startServer((_request, res) => problem(res, 400, "VALIDATION_FAILED"));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const { error } = await client.POST("/v1/leads", { body: lead });
    expect(error?.code).toBe("VALIDATION_FAILED");
    expect(server.requests).toHaveLength(1);
  });
});

describe("error answers of any shape reach the caller as the typed problem", () => {
  const cases: {
    name: string;
    status: number;
    headers: Record<string, string>;
    body: string;
    want: Partial<ApiProblem>;
  }[] = [
    {
      name: "a gateway's empty 504",
      status: 504,
      headers: { "content-length": "0" },
      body: "",
      want: { status: 504, code: "HTTP_504", raw: "", type: "about:blank" },
    },
    {
      name: "a proxy's HTML 502",
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html><body><h1>502 Bad Gateway</h1></body></html>",
      want: { status: 502, code: "HTTP_502", raw: "<html><body><h1>502 Bad Gateway</h1></body></html>" },
    },
    {
      name: "a plain text 500 with a Request-Id header",
      status: 500,
      headers: { "content-type": "text/plain", "request-id": "req_text" },
      body: "Internal Server Error",
      want: { status: 500, code: "HTTP_500", request_id: "req_text", raw: "Internal Server Error" },
    },
    {
      name: "JSON of another shape",
      status: 503,
      headers: { "content-type": "application/json" },
      body: '{"message":"down for maintenance","status":"maintenance"}',
      want: { status: 503, code: "HTTP_503", raw: '{"message":"down for maintenance","status":"maintenance"}' },
    },
    {
      name: "the API's own problem, request id from the body",
      status: 404,
      headers: { "content-type": "application/problem+json" },
      body: '{"type":"/problems/lead-not-found","title":"Lead not found","status":404,"detail":"No lead lead_1.","code":"LEAD_NOT_FOUND","request_id":"req_body"}',
      want: {
        status: 404,
        code: "LEAD_NOT_FOUND",
        request_id: "req_body",
        title: "Lead not found",
        detail: "No lead lead_1.",
      },
    },
    {
      name: "a code this SDK does not know yet",
      status: 422,
      headers: { "content-type": "application/problem+json" },
      body: '{"type":"/problems/x","title":"X","status":422,"code":"A_CODE_FROM_THE_FUTURE","request_id":"req_x"}',
      want: { status: 422, code: "A_CODE_FROM_THE_FUTURE", request_id: "req_x" },
    },
  ];

  it.each(cases)("$name", async ({ status, headers, body, want }) => {
    server = await startServer((_request, res) => {
      res.writeHead(status, headers).end(body);
    });
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url, maxRetries: 0 });
    const { data: created, error, response } = await client.POST("/v1/leads", { body: lead });
    expect(response.status).toBe(status);
    expect(error).toMatchObject(want);
    // The README's own pattern: no TypeError whatever the body was.
    expect(() => {
      if (error) throw new Error(`${error.code}: ${error.detail}`);
      return created.id;
    }).toThrow(String(want.code));
  });
});

describe("headers", () => {
  it("sends the API key and service-sdk/<version> node/<version> as User-Agent", async () => {
    server = await startServer((_request, res) => json(res, 200, { object: "list", data: [], has_more: false }));
    const client = createClient({ apiKey: "sk_test", baseUrl: `${server.url}/` });
    await client.GET("/v1/leads");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk_test");
    expect(server.requests[0]?.headers["user-agent"]).toBe(`service-sdk/${SDK_VERSION} node/${process.versions.node}`);
  });

  it("reports the version of package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(SDK_VERSION).toBe(pkg.version);
  });

  it("uses an injected fetch, with its own key generator", async () => {
    const seen: Request[] = [];
    const client = createClient({
      apiKey: "sk_test",
      baseUrl: "http://api.test",
      idempotencyKey: () => "key-1",
      async fetch(request) {
        seen.push(request);
        return Response.json({ id: "lead_1", object: "lead" }, { status: 201 });
      },
    });
    const { data } = await client.POST("/v1/leads", { body: lead });
    expect(data?.id).toBe("lead_1");
    expect(seen[0]?.headers.get("idempotency-key")).toBe("key-1");
  });
});

// Compile-time tests (the sdk's typecheck includes this file): each line fails to compile if the error-code type
// loses its known codes (editor completion) or stops accepting codes added later.
type IsPlainString<T> = [T] extends [string] ? ([Extract<T, "LEAD_NOT_FOUND">] extends [never] ? true : false) : false;
export function typeTests(error: ApiProblem): void {
  const notPlain: IsPlainString<ErrorCode> = false;
  const callErrorNotPlain: IsPlainString<ApiProblem["code"]> = false;
  const known: Extract<ErrorCode, "LEAD_NOT_FOUND" | "RATE_LIMITED"> = "RATE_LIMITED";
  const later: ErrorCode = "A_CODE_ADDED_LATER";
  const fromCall: string = error.code;
  void [notPlain, callErrorNotPlain, known, later, fromCall];
}
