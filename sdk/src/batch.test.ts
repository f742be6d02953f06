/**
 * `upsertLeads` splits rows into calls of 100: a failed row is reported by its row in the caller's array, not by its
 * place in the call that carried it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { inCallersRows, upsertLeads } from "./batch.js";
import { createClient } from "./client.js";
import { ApiError } from "./errors.js";
import { json, startServer, type TestServer } from "./test-server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A batch endpoint that fails every item without an e-mail, as the service does, with the path of its call. */
async function batchServer(): Promise<TestServer> {
  return startServer((request, res) => {
    const { items } = JSON.parse(request.body) as { items: { email?: string }[] };
    json(res, 200, {
      object: "list",
      data: items.map((item, index) =>
        item.email
          ? { result: "created", object: { id: `lead_${index}` } }
          : {
              result: "failed",
              problem: {
                type: "/problems/validation-failed",
                title: "Validation failed",
                status: 400,
                code: "VALIDATION_FAILED",
                request_id: "req_test",
                errors: [{ path: `body.items.${index}.email`, message: "is required to match on email" }],
              },
            },
      ),
    });
  });
}

describe("upsertLeads", () => {
  it("reports row 150's failure as body.items.150, not the body.items.50 of its call", async () => {
    server = await batchServer();
    const client = createClient({ apiKey: "sk_test_1", baseUrl: server.url });
    const rows = Array.from({ length: 230 }, (_, row) =>
      row === 150 ? { name: "no e-mail" } : { email: `${row}@x.io` },
    );
    const results = await upsertLeads(client, rows, { matchOn: "email" });
    expect(server.requests).toHaveLength(3);
    expect(results).toHaveLength(230);
    expect(results.filter((item) => item.result === "failed")).toHaveLength(1);
    expect(results[150]?.problem?.errors).toEqual([
      { path: "body.items.150.email", message: "is required to match on email" },
    ]);
  });

  it("throws a call refused as a whole with its paths in the caller's rows too", async () => {
    const refusal = {
      type: "/problems/validation-failed",
      title: "Validation failed",
      status: 400,
      code: "VALIDATION_FAILED",
      request_id: "req_test",
      errors: [{ path: "body.items.3.name", message: "must not contain U+0000" }],
    };
    const created = { object: "list", data: Array.from({ length: 100 }, () => ({ result: "created" })) };
    server = await startServer((_request, res, index) =>
      index === 0 ? json(res, 200, created) : json(res, 400, refusal),
    );
    const client = createClient({ apiKey: "sk_test_1", baseUrl: server.url });
    const rows = Array.from({ length: 150 }, (_, row) => ({ email: `${row}@x.io` }));
    const refused = await upsertLeads(client, rows, { matchOn: "email" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).problem.errors?.[0]?.path).toBe("body.items.103.name");
  });
});

describe("inCallersRows", () => {
  const given = (path: string) => ({ errors: [{ path, message: "m" }] });
  it.each([
    { path: "body.items.50.email", start: 100, want: "body.items.150.email" },
    { path: "body.items.7", start: 200, want: "body.items.207" },
    { path: "body.items.50.email", start: 0, want: "body.items.50.email" },
    { path: "body.match_on", start: 100, want: "body.match_on" },
    { path: "body.items.5x", start: 100, want: "body.items.5x" },
  ])("turns $path of the call from row $start into $want", ({ path, start, want }) => {
    expect(inCallersRows(given(path), start).errors[0]?.path).toBe(want);
  });

  it("leaves a problem without field errors as it is", () => {
    const problem = { code: "RATE_LIMITED", errors: undefined };
    expect(inCallersRows(problem, 100)).toBe(problem);
  });
});
