import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { expectProblem } from "../helpers/problem.ts";
import { startTestService, useTestService } from "../helpers/service.ts";

const service = useTestService({ METRICS_PORT: "0" });

describe("operational endpoints", () => {
  it("answers /health with 200 and a Request-Id", async () => {
    const response = await service().fetch("/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expect(response.headers.get("request-id")).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("keeps idle connections longer than a load balancer's 60 s, and says so (Keep-Alive: timeout=65)", async () => {
    const response = await service().fetch("/health");
    expect(response.headers.get("keep-alive")).toBe("timeout=65");
  });

  it("answers /ready with 200 once PostgreSQL, the queue (and Redis when configured) answer", async () => {
    const response = await service().fetch("/ready");
    const body = (await response.json()) as { status: string; checks: Record<string, { ok: boolean }> };
    expect(response.status).toBe(200);
    expect(body.status).toBe("ready");
    const expected = ["postgres", "queue", ...(process.env.REDIS_URL ? ["redis"] : [])];
    expect(Object.keys(body.checks).sort()).toEqual(expected.sort());
    for (const name of expected) expect(body.checks[name]?.ok).toBe(true);
  });

  it("exposes Prometheus metrics on their own listener with the request histogram by route template", async () => {
    await service().fetch("/health");
    const url = service().service.metricsUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(url ?? "").port).not.toBe(new URL(service().url).port);
    const response = await fetch(url ?? "");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} \d+/);
    expect(text).toContain("process_cpu_seconds_total");
  });

  it("does not serve /metrics on the public API listener", async () => {
    await expectProblem(await service().fetch("/metrics"), 404, "ROUTE_NOT_FOUND");
  });

  it("marks every answer nosniff", async () => {
    for (const path of ["/health", "/ready", "/openapi.json", "/docs", "/v1/leads", "/nowhere", "/api/auth/session"]) {
      const response = await service().fetch(path);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });

  it("forbids caching of every /v1 and /api answer", async () => {
    for (const path of ["/v1/leads", "/api/auth/session", "/api/workspace/api-keys"]) {
      const response = await service().fetch(path);
      expect(response.headers.get("cache-control"), path).toBe("no-store");
    }
  });

  it("gives every /v1 and /api answer, errors included, a policy that loads, runs and frames nothing", async () => {
    const requests: [string, RequestInit?][] = [
      ["/v1/leads"],
      ["/api/auth/session"],
      ["/v1/nowhere"],
      ["/v1/leads", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }],
    ];
    for (const [path, init] of requests) {
      const response = await service().fetch(path, init);
      expect(response.headers.get("content-security-policy"), path).toBe("default-src 'none';frame-ancestors 'none'");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
    }
    // The console and the reference keep their own policies.
    for (const path of ["/docs"]) {
      expect((await service().fetch(path)).headers.get("content-security-policy"), path).not.toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
    }
  });

  it("serves the contract as JSON and YAML, the same document", async () => {
    const json = (await (await service().fetch("/openapi.json")).json()) as Record<string, unknown>;
    const yamlResponse = await service().fetch("/openapi.yaml");
    expect(yamlResponse.headers.get("content-type")).toMatch(/yaml/);
    const yaml = parse(await yamlResponse.text()) as Record<string, unknown>;
    expect(json).toEqual(yaml);
    expect(json.openapi).toBe("3.1.0");
    expect((json.info as { version: string }).version).toBe("1.0.0");
    expect(Object.keys(json.webhooks as object).sort()).toEqual([
      "attribute_definition.archived",
      "attribute_definition.created",
      "attribute_definition.updated",
      "conversation.created",
      "conversation.updated",
      "lead.captured",
      "lead.deleted",
      "lead.updated",
      "message.created",
      "ticket.updated",
    ]);
  });

  it("serves the /docs reference from local assets only, under a CSP that forbids other origins", async () => {
    const response = await service().fetch("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await response.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");
    expect(references.length).toBeGreaterThanOrEqual(4);
    for (const reference of references) {
      expect(reference, "every asset is same-origin").toMatch(/^\/docs\//);
      const asset = await service().fetch(reference);
      expect(asset.status, reference).toBe(200);
      const body = await asset.text();
      expect(body.length, reference).toBeGreaterThan(0);
    }
    const init = await (await service().fetch("/docs/init.js")).text();
    expect(init).toContain('url: "/openapi.json"');
    expect(init).toContain("validatorUrl: null");
  });

  it("does not put the docs CSP on API responses", async () => {
    const response = await service().fetch("/health");
    expect(response.headers.get("content-security-policy")).toBeNull();
  });

  it("refuses files of the docs asset folder that the page does not use", async () => {
    const response = await service().fetch("/docs/assets/package.json");
    expect(response.status).toBe(404);
  });
});

describe("the access log", () => {
  it("logs a probe when its answer changes, not on every call, and a 404 under the route `unmatched`", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const logged = await startTestService({}, logger);
    try {
      for (let round = 0; round < 3; round++) {
        expect((await logged.fetch("/health")).status).toBe(200);
        expect((await logged.fetch("/ready")).status).toBe(200);
      }
      await expectProblem(await logged.fetch("/v1/no-such-resource"), 404, "ROUTE_NOT_FOUND");
      await vi.waitFor(() => expect(lines.some((line) => line.path === "/v1/no-such-resource")).toBe(true));
      const requests = lines.filter((line) => line.msg === "request");
      expect(requests.filter((line) => line.path === "/health")).toHaveLength(1);
      expect(requests.filter((line) => line.path === "/ready")).toHaveLength(1);
      expect(requests.find((line) => line.path === "/v1/no-such-resource")).toMatchObject({
        status: 404,
        route: "unmatched",
      });
    } finally {
      await logged.stop();
      await logged.database.drop();
    }
  });
});
