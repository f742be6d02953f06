/**
 * The developer console (`@service/console`, a Vite build) at `/`. Hashed assets are cached for a year
 * (`immutable`: a new build has new names); `index.html` is never cached, so a deploy reaches every browser on its
 * next load. `index.html` answers only the console's own pages, listed by its build in `routes.json`: every other
 * path (an unknown `/v1/…`, a probe) still reaches the API's 404 problem. The CSP allows this origin only: no CDN,
 * no inline script, no inline style.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type Router } from "express";

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

export interface ConsoleBuild {
  dir: string;
  indexHtml: string;
  /** Path patterns of the console's pages (`/settings/developers/webhooks/:webhookId`). */
  routes: string[];
  assets: Set<string>;
}

/** The console's build, or undefined when it was not built (`npm run build` builds it). */
export function findConsoleBuild(): ConsoleBuild | undefined {
  let dir: string;
  try {
    dir = join(dirname(createRequire(import.meta.url).resolve("@service/console/package.json")), "dist");
  } catch {
    return undefined;
  }
  if (!existsSync(join(dir, "index.html")) || !existsSync(join(dir, "routes.json"))) return undefined;
  return {
    dir,
    indexHtml: readFileSync(join(dir, "index.html"), "utf8"),
    routes: JSON.parse(readFileSync(join(dir, "routes.json"), "utf8")) as string[],
    assets: new Set(existsSync(join(dir, "assets")) ? readdirSync(join(dir, "assets")) : []),
  };
}

/**
 * A page pattern as a regular expression: `:name` matches one non-empty segment; a trailing slash is allowed.
 *
 * @example routePattern("/settings/developers/webhooks/:webhookId").test("/settings/developers/webhooks/wh_1") // true
 */
export function routePattern(route: string): RegExp {
  const source = route
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source === "" ? "/" : source}/?$`);
}

export function consoleRouter(build: ConsoleBuild): Router {
  const pages = build.routes.map(routePattern);
  const router = express.Router();
  const secure: express.RequestHandler = (_req, res, next) => {
    res.setHeader("Content-Security-Policy", CONSOLE_CSP);
    res.setHeader("Referrer-Policy", "no-referrer");
    next();
  };

  router.get("/assets/:file", (req, res, next) => {
    if (!build.assets.has(req.params.file)) {
      next();
      return;
    }
    res.setHeader("Content-Security-Policy", CONSOLE_CSP);
    res.sendFile(req.params.file, {
      root: join(build.dir, "assets"),
      maxAge: ONE_YEAR_SECONDS * 1000,
      immutable: true,
      lastModified: false,
    });
  });
  router.get("/favicon.svg", secure, (_req, res) => {
    res.sendFile("favicon.svg", { root: build.dir, maxAge: "1d" });
  });
  router.get(/.*/, (req, res, next) => {
    if (!pages.some((page) => page.test(req.path))) {
      next();
      return;
    }
    secure(req, res, () => {
      res.setHeader("Cache-Control", "no-store");
      res.type("html").send(build.indexHtml);
    });
  });
  return router;
}
