/**
 * Two hops, true by name: an operation `<Resource>_<name>` of the contract is declared in
 * `spec/routes/<resource>.tsp`, handled in `server/src/domain/<resource>/<resource>.routes.ts` and tested in one
 * `tests/<area>/<resource>.test.ts`, `<resource>` being the kebab-case of its operationId's prefix (`ApiKeys` →
 * `api-keys`). The deliberate exceptions are in RESOURCE_OF; each names why.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { listOperations } from "../../server/src/http/openapi-document.ts";

const repo = new URL("../..", import.meta.url).pathname;

/** Operation prefixes whose resource is not their own kebab-case name. */
const RESOURCE_OF: Record<string, { resource: string; why: string }> = {
  EventTypes: { resource: "events", why: "the catalog of the events' types, served beside them" },
  WorkspaceWebhooks: { resource: "webhooks", why: "the same subscriptions, through the console's session" },
  WorkspaceEvents: { resource: "events", why: "the same events, through the console's session" },
  WorkspaceAttributeDefinitions: {
    resource: "attribute-definitions",
    why: "the same definitions, through the console's session",
  },
  WorkspaceSettings: { resource: "workspaces", why: "the contract's tag for the signed-in user's workspace" },
};

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

function resourceOf(operationId: string): string {
  const prefix = operationId.split("_")[0] ?? operationId;
  return RESOURCE_OF[prefix]?.resource ?? kebab(prefix);
}

/**
 * The test files by the resource they are named for: `tests/<area>/<resource>.test.ts`, and beside it
 * `<resource>.<aspect>.test.ts` for one aspect of it (Express's `test/req.ip.js`): `webhooks.delivery.test.ts`.
 */
function testFiles(): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const area of readdirSync(join(repo, "tests"), { withFileTypes: true })) {
    if (!area.isDirectory()) continue;
    for (const file of readdirSync(join(repo, "tests", area.name))) {
      const name = /^([^.]+)(?:\.[^.]+)?\.test\.ts$/.exec(file)?.[1];
      if (name) files.set(name, [...(files.get(name) ?? []), `tests/${area.name}/${file}`]);
    }
  }
  return files;
}

/**
 * Whether a test's text calls the operation: its path, written as the contract writes it (the SDK's
 * `client.GET("/v1/leads/{lead_id}")`) or with its parameters filled in (`/v1/leads/${lead.id}`), and, where the
 * path has more than one method, its method beside it.
 */
/** The SDK's listing helpers (sdk/src/client.ts), each a GET of one list operation. */
const SDK_LISTS: Record<string, RegExp> = {
  "/v1/leads": /\.leads\.list\(/,
  "/v1/conversations": /\.conversations\.list\(/,
  "/v1/conversations/{conversation_id}/messages": /\.conversations\.messages\(/,
  "/v1/tickets": /\.tickets\.list\(/,
  "/v1/events": /\.events\.list\(/,
};

function callsOperation(text: string, method: string, path: string, sharedPath = true): boolean {
  if (method === "get" && SDK_LISTS[path]?.test(text)) return true;
  const segments = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\/]/g, "\\$&"));
  const pathPattern = segments.join("(?:\\{[a-z_]+\\}|\\$\\{[^}]+\\}|[A-Za-z0-9_]+)");
  const call = new RegExp(`${pathPattern}(?=[\`"'?])`, "g");
  for (const match of text.matchAll(call)) {
    if (!sharedPath) return true;
    // The method within the call, before the path (client.POST("…"), or a fetch whose options follow it).
    // The statement the path is in: from the line's start to the statement's end.
    const start = text.lastIndexOf("\n", match.index) + 1;
    const end = text.indexOf(";", match.index);
    const around = text.slice(Math.max(start, match.index - 80), end === -1 ? undefined : end);
    const upper = method.toUpperCase();
    if (new RegExp(`\\b${upper}\\b`).test(around)) return true;
    // The tests' json() helper (tests/helpers/accounts.ts) makes a POST unless told another method.
    const posts = /(?<![.\w])json\(/.test(around);
    if (upper === "POST" && posts && !/\bmethod:/.test(around)) return true;
    if (upper === "GET" && !posts && !/\bmethod:|\b(POST|PUT|PATCH|DELETE)\b/.test(around)) return true;
  }
  return false;
}

describe("the layout: an operation's contract, handler and test are where its name says", () => {
  const doc = parse(readFileSync(join(repo, "spec/generated/openapi.yaml"), "utf8")) as Record<string, unknown>;
  const operations = listOperations(doc);
  const tests = testFiles();

  it("finds the operations", () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))(
    "%s: spec/routes, domain/*.routes.ts and one tests/<area>/<resource>.test.ts",
    (operationId, operation) => {
      const resource = resourceOf(operationId);
      const prefix = operationId.split("_")[0] as string;
      const contract = join(repo, "spec/routes", `${resource}.tsp`);
      expect(existsSync(contract), `spec/routes/${resource}.tsp`).toBe(true);
      expect(readFileSync(contract, "utf8"), `spec/routes/${resource}.tsp declares ${prefix}`).toMatch(
        new RegExp(`^(?:namespace|interface) ${prefix}\\b`, "m"),
      );
      const routes = join(repo, "server/src/domain", resource, `${resource}.routes.ts`);
      expect(existsSync(routes), `server/src/domain/${resource}/${resource}.routes.ts`).toBe(true);
      expect(readFileSync(routes, "utf8"), `${resource}.routes.ts handles ${operationId}`).toMatch(
        new RegExp(`\\b${operationId}:`),
      );
      const files = tests.get(resource) ?? [];
      expect(files, `tests/<area>/${resource}.test.ts`).toContain(
        files.find((file) => file.endsWith(`/${resource}.test.ts`)),
      );
      expect(new Set(files.map((file) => file.split("/")[1])).size, `${files.join(", ")} in one area`).toBe(1);
      const shared = operations.filter((other) => other.path === operation.path).length > 1;
      const calling = files.filter((file) =>
        callsOperation(readFileSync(join(repo, file), "utf8"), operation.method, operation.path, shared),
      );
      expect(calling, `${files.join(" or ")} calls ${operation.method.toUpperCase()} ${operation.path}`).not.toEqual(
        [],
      );
    },
  );

  it("tells an operation's call from another's", () => {
    const text = ['await client.POST("/v1/leads/{lead_id}", {});', "await fetch(`/v1/leads/$" + "{id}/notes`);"].join(
      "\n",
    );
    expect(callsOperation(text, "post", "/v1/leads/{lead_id}")).toBe(true);
    expect(callsOperation(text, "patch", "/v1/leads/{lead_id}")).toBe(false);
    expect(callsOperation(text, "get", "/v1/leads/{lead_id}/notes")).toBe(true);
    expect(callsOperation(text, "patch", "/v1/leads/{lead_id}", false)).toBe(true);
    expect(callsOperation('fetch("/api/auth/login", json({ email }))', "post", "/api/auth/login")).toBe(true);
    expect(callsOperation('fetch("/api/auth/login", json({ email }))', "get", "/api/auth/login")).toBe(false);
    expect(callsOperation(text, "get", "/v1/leads")).toBe(false);
    expect(resourceOf("ApiKeys_rotate")).toBe("api-keys");
    expect(resourceOf("WorkspaceWebhooks_list")).toBe("webhooks");
  });
});
