/**
 * In production the service sends its JSON answers without `res.json` (dispatch.ts), while tests and development
 * send them through it, where the validator checks them against the contract. The two paths must give the same
 * answer: the same status, body, and headers that describe the body.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const checked = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });
const production = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000", NODE_ENV: "production" });

type Service = ReturnType<typeof checked>;

/** The same requests against one service: a write, its replay, a page, a 404, and a 204. */
async function exchange(service: Service) {
  const { key } = await workspaceWithKey(service, ["leads:read", "leads:write"]);
  const auth = { authorization: `Bearer ${key}` };
  const idempotencyKey = randomUUID();
  const create = () =>
    service.fetch("/v1/leads", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify({ email: "same@example.com", name: "Zoë ✓", tags: ["b", "a", "b"] }),
    });
  const created = await create();
  const replayed = await create();
  for (let i = 0; i < 25; i++) {
    await service.fetch("/v1/leads", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: `Lead ${i} ${"é".repeat(40)}` }),
    });
  }
  const page = await service.fetch("/v1/leads?limit=20", { headers: auth });
  const missing = await service.fetch("/v1/leads/lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7", { headers: auth });
  const id = ((await created.clone().json()) as { id: string }).id;
  const deleted = await service.fetch(`/v1/leads/${id}`, { method: "DELETE", headers: auth });
  return { created, replayed, page, missing, deleted };
}

/** What must not differ between the two paths; ids and times differ between two services by nature. */
async function shape(response: Response) {
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  const stable = JSON.stringify(body, (name, value) =>
    name === "id" || name.endsWith("_at") || name === "next_cursor" || name === "request_id" || name === "instance"
      ? typeof value
      : value,
  );
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    contentLength: response.headers.get("content-length"),
    bodyBytes: Buffer.byteLength(text),
    transferEncoding: response.headers.get("transfer-encoding"),
    replayed: response.headers.get("idempotent-replayed"),
    cacheControl: response.headers.get("cache-control"),
    body: stable,
  };
}

describe("answers sent in production", () => {
  it("are the answers that the response-checked path sends", async () => {
    const [ours, theirs] = await Promise.all([exchange(production()), exchange(checked())]);
    const statuses: Record<string, number> = {};
    for (const name of Object.keys(ours) as (keyof typeof ours)[]) {
      const [a, b] = [await shape(ours[name]), await shape(theirs[name])];
      expect(a, name).toEqual(b);
      if (a.body !== undefined && a.status !== 204) expect(Number(a.contentLength), name).toBe(a.bodyBytes);
      statuses[name] = a.status;
    }
    expect(statuses).toEqual({ created: 201, replayed: 201, page: 200, missing: 404, deleted: 204 });
  });
});
