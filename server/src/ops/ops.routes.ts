/**
 * Operational endpoints, outside the contract: liveness, readiness, the contract itself, its reference page and the
 * pages of its error codes.
 * Metrics are not here: they have a listener of their own (metrics.ts).
 */
import express, { type Router } from "express";
import { type DocumentName, loadOpenApiDocument, type OpenApiDocument } from "../http/openapi-document.ts";
import { withDeadline } from "../lib/deadline.ts";
import { docsRouter } from "./docs.ts";
import { problemsRouter } from "./problems.ts";

export interface ReadinessCheck {
  name: string;
  /**
   * false: the process serves without it (Redis: the request budgets count in PostgreSQL meanwhile), so its failure is
   * reported as `degraded` with 200, and a balancer keeps the process in rotation. Default true.
   */
  essential?: boolean;
  check(): Promise<void>;
}

const READINESS_TIMEOUT_MS = 2_000;

/**
 * A check against its deadline, which a busy event loop cannot trip by itself (lib/deadline.ts): with a plain timer, a
 * loaded host whose PostgreSQL had answered in time, but whose answer was not read yet, reported 503 and left the
 * balancer's rotation.
 */
async function runCheck(check: ReadinessCheck): Promise<{ name: string; ok: boolean; error?: string }> {
  try {
    await withDeadline(check.check(), READINESS_TIMEOUT_MS);
    return { name: check.name, ok: true };
  } catch (error) {
    return { name: check.name, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export function opsRouter(options: {
  openapi: OpenApiDocument;
  readiness: ReadinessCheck[];
  isShuttingDown: () => boolean;
}): Router {
  const router = express.Router();

  router.get("/health", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });

  router.get("/ready", async (_req, res) => {
    const checks = await Promise.all(options.readiness.map(runCheck));
    const ready =
      !options.isShuttingDown() && checks.every((check, i) => check.ok || options.readiness[i]?.essential === false);
    res.setHeader("Cache-Control", "no-store");
    res.status(ready ? 200 : 503).json({
      status: ready ? (checks.every((check) => check.ok) ? "ready" : "degraded") : "unavailable",
      shutting_down: options.isShuttingDown(),
      checks: Object.fromEntries(checks.map(({ name, ...rest }) => [name, rest])),
    });
  });

  router.get("/openapi.json", (_req, res) => {
    res.type("application/json").send(options.openapi.json);
  });
  router.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(options.openapi.yaml);
  });
  // The same contract for tools that read only OpenAPI 3.0, or only 2.0 (Power Automate's custom connectors).
  const published: [string, DocumentName][] = [
    ["/openapi.3.0", "openapi.3.0.yaml"],
    ["/swagger", "swagger.2.0.yaml"],
  ];
  for (const [path, name] of published) {
    router.get(`${path}.json`, (_req, res) => {
      res.type("application/json").send(loadOpenApiDocument(name).json);
    });
    router.get(`${path}.yaml`, (_req, res) => {
      res.type("application/yaml").send(loadOpenApiDocument(name).yaml);
    });
  }

  router.use(docsRouter());
  router.use(problemsRouter());
  return router;
}
