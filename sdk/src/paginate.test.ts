import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { ApiError } from "./errors.js";
import { paginate } from "./paginate.js";
import { json, problem, type SeenRequest, startServer, type TestServer } from "./test-server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ids = ["dlv_5", "dlv_4", "dlv_3", "dlv_2", "dlv_1"];

/** A list of five, newest first, in pages of `limit` (default 2); the cursor is the index of the next item. */
function listOf(request: SeenRequest) {
  const limit = Number(request.url.searchParams.get("limit") ?? 2);
  const from = Number(request.url.searchParams.get("cursor") ?? 0);
  const data = ids.slice(from, from + limit).map((id) => ({ id, object: "delivery" }));
  const next = from + limit < ids.length ? String(from + limit) : null;
  return { object: "list", data, has_more: next !== null, next_cursor: next };
}

describe("paginate", () => {
  it("walks every page of webhook deliveries from a starting cursor, with the caller's headers", async () => {
    server = await startServer((request, res) => json(res, 200, listOf(request)));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const seen: string[] = [];
    for await (const delivery of client.paginate("/v1/webhooks/{webhook_id}/deliveries", {
      params: { path: { webhook_id: "wh_1" }, query: { limit: 2 } },
      cursor: "1",
      headers: { "x-trace": "t-1" },
    })) {
      seen.push(delivery.id);
    }
    expect(seen).toEqual(["dlv_4", "dlv_3", "dlv_2", "dlv_1"]);
    expect(server.requests.map((r) => `${r.url.pathname}?${r.url.searchParams}`)).toEqual([
      "/v1/webhooks/wh_1/deliveries?limit=2&cursor=1",
      "/v1/webhooks/wh_1/deliveries?limit=2&cursor=3",
    ]);
    expect(server.requests.every((r) => r.headers["x-trace"] === "t-1")).toBe(true);
  });

  it("stops at once when the signal aborts between pages, and fetches nothing more", async () => {
    server = await startServer((request, res) => json(res, 200, listOf(request)));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const controller = new AbortController();
    const seen: string[] = [];
    const walk = async () => {
      for await (const lead of client.paginate("/v1/leads", { signal: controller.signal })) {
        seen.push(lead.id);
        if (seen.length === 2) controller.abort();
      }
    };
    await expect(walk()).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual(["dlv_5", "dlv_4"]);
    expect(server.requests).toHaveLength(1);
  });

  it("passes the signal to each page's request (a 20 s Retry-After wait ends at the abort)", async () => {
    server = await startServer((_request, res) => problem(res, 429, "RATE_LIMITED", { "retry-after": "20" }));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const controller = new AbortController();
    const walk = (async () => {
      for await (const _ of client.paginate("/v1/events", { signal: controller.signal })) break;
    })();
    await server.received(1);
    const abortedAt = performance.now();
    controller.abort();
    await expect(walk).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
  });

  it("throws ApiError with the problem's code and request id on an error answer", async () => {
    server = await startServer((_request, res) => problem(res, 400, "INVALID_CURSOR"));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const walk = async () => {
      for await (const _ of client.paginate("/v1/tickets", { cursor: "garbage" })) break;
    };
    const failure = await walk().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 400, code: "INVALID_CURSOR", requestId: "req_test" });
  });

  it("gives the pages themselves, with next_cursor to resume later", async () => {
    server = await startServer((request, res) => json(res, 200, listOf(request)));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const cursors: (string | null)[] = [];
    for await (const page of client.pages("/v1/leads", { params: { query: { limit: 2 } } })) {
      cursors.push(page.next_cursor);
    }
    expect(cursors).toEqual(["2", "4", null]);
  });

  it("is the engine of the resource helpers, which take a cursor and a signal too", async () => {
    server = await startServer((request, res) => json(res, 200, listOf(request)));
    const client = createClient({ apiKey: "sk_test", baseUrl: server.url });
    const fromHelper: string[] = [];
    for await (const delivery of client.webhooks.deliveries("wh_1", { limit: 3 }, { cursor: "2" })) {
      fromHelper.push(delivery.id);
    }
    expect(fromHelper).toEqual(["dlv_3", "dlv_2", "dlv_1"]);
    const viaFunction: string[] = [];
    for await (const lead of paginate(client, "/v1/leads", { params: { query: { status: "new" } } })) {
      viaFunction.push(lead.id);
    }
    expect(viaFunction).toHaveLength(5);
    expect(server.requests.at(-1)?.url.searchParams.get("status")).toBe("new");
  });
});

// Compile-time tests: the paginator knows every list path and its item type, and requires path parameters.
export async function typeTests(client: ReturnType<typeof createClient>): Promise<void> {
  for await (const delivery of client.paginate("/v1/webhooks/{webhook_id}/deliveries", {
    params: { path: { webhook_id: "wh_1" } },
  })) {
    const status: "pending" | "succeeded" | "failed" = delivery.status;
    void status;
  }
  // @ts-expect-error: the path parameter is required
  client.paginate("/v1/webhooks/{webhook_id}/deliveries");
  // @ts-expect-error: not a list
  client.paginate("/v1/leads/{lead_id}", { params: { path: { lead_id: "lead_1" } } });
  // @ts-expect-error: a filter the list does not have
  client.paginate("/v1/leads", { params: { query: { colour: "red" } } });
}
