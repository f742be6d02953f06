import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONSOLE_CSP, routePattern } from "../../server/src/ops/console.ts";
import { expectProblem } from "../helpers/problem.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService();
const asset = /src="(\/assets\/[^"]+\.js)"/.exec(readFileSync("console/dist/index.html", "utf8"))?.[1] ?? "";

describe("the console at /", () => {
  it.each(["/", "/sign-up", "/login", "/verify-email", "/reset-password", "/settings/developers/webhooks/wh_1"])(
    "answers %s with index.html under the strict CSP, never cached",
    async (path) => {
      const response = await service().fetch(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.text()).toContain('<div id="root">');
    },
  );

  it("serves hashed assets cached immutably for a year", async () => {
    const response = await service().fetch(asset);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it.each(["/nope", "/assets/missing.js", "/v1/nope", "/api/nope", "/settings/developers/webhooks/a/b/c"])(
    "leaves %s to the API's 404 problem",
    async (path) => {
      await expectProblem(await service().fetch(path), 404, "ROUTE_NOT_FOUND");
    },
  );

  it("keeps /docs, /openapi.json and /health as they were", async () => {
    expect((await service().fetch("/docs")).headers.get("content-security-policy")).toContain("'unsafe-inline'");
    expect((await service().fetch("/openapi.json")).status).toBe(200);
    expect(await (await service().fetch("/health")).json()).toEqual({ status: "ok" });
  });
});

describe("routePattern", () => {
  it.each([
    { route: "/", path: "/", want: true },
    { route: "/", path: "/x", want: false },
    { route: "/login", path: "/login/", want: true },
    { route: "/login", path: "/login/x", want: false },
    { route: "/w/:id", path: "/w/wh_1", want: true },
    { route: "/w/:id", path: "/w/", want: false },
  ])("$route matches $path: $want", ({ route, path, want }) => {
    expect(routePattern(route).test(path)).toBe(want);
  });
});
