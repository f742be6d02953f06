import { beforeAll, describe, expect, it } from "vitest";
import { listOperations, loadOpenApiDocument } from "../../server/src/http/openapi-document.ts";
import { registerAndVerify, type SignedIn, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

// TRUST_PROXY: the account helpers send each request from an address of its own, clear of the per-IP limits.
const service = useTestService({ TRUST_PROXY: "loopback" });
const { doc } = loadOpenApiDocument();
const operations = listOperations(doc);

/** A well-formed id for each path parameter, so that the request reaches routing, not id validation. */
const SAMPLE_IDS: Record<string, string> = {
  lead_id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
  conversation_id: "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
  ticket_id: "tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K",
  event_id: "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
  webhook_id: "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
  delivery_id: "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
  key_id: "key_01JD3Z7G1B2C3D4E5F6G7H8J9K",
};

describe("routing of the contract", () => {
  it("has every operation of the 3.1 document, each with an operationId, summary and tag", () => {
    expect(operations.length).toBeGreaterThanOrEqual(50);
    const paths = doc.paths as Record<string, Record<string, { summary?: string; tags?: string[] }>>;
    for (const operation of operations) {
      const spec = paths[operation.path]?.[operation.method];
      expect(spec?.summary, operation.operationId).toBeTruthy();
      expect(spec?.tags?.length, operation.operationId).toBeGreaterThan(0);
    }
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
  });

  // Real credentials with every scope, so that each request gets past authentication into its handler.
  let key: string;
  /** A test mode key, for the operations a live key is refused (`x-test-mode-only`). */
  let testKey: string;
  let email: string;
  let session: SignedIn;
  beforeAll(async () => {
    key = (await workspaceWithKey(service(), ALL_SCOPES)).key;
    testKey = (await workspaceWithKey(service(), ALL_SCOPES, "test")).key;
    email = uniqueEmail("routing");
    await registerAndVerify(service(), email);
    session = await signIn(service(), email);
  });

  it.each(operations)("routes $method $path ($operationId) to its handler", async (operation) => {
    const path = operation.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => SAMPLE_IDS[name] ?? "x");
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (operation.schemes.includes("ApiKeyBearer")) {
      headers.authorization = `Bearer ${operation.testModeOnly ? testKey : key}`;
    }
    if (operation.schemes.includes("SessionCookie")) {
      // Signing out ends a session: that operation gets one of its own.
      const own = operation.operationId === "Auth_logout" ? await signIn(service(), email) : session;
      headers.cookie = own.cookie;
      headers["x-csrf-token"] = own.csrf;
    }
    const response = await service().fetch(path, {
      method: operation.method.toUpperCase(),
      headers,
      ...(operation.method === "post" || operation.method === "patch" ? { body: "{}" } : {}),
    });
    const text = await response.text();
    const body = (text ? JSON.parse(text) : {}) as { code?: string };
    expect(response.status, JSON.stringify(body)).not.toBe(405);
    expect(body.code).not.toBe("ROUTE_NOT_FOUND");
    if (operation.schemes.length > 0) expect([401, 403], JSON.stringify(body)).not.toContain(response.status);
    // Every operation of the contract is built: nothing answers 501 NOT_IMPLEMENTED, nor any other 5xx.
    expect(response.status).toBeLessThan(500);
    expect(body.code).not.toBe("NOT_IMPLEMENTED");
  });
});
