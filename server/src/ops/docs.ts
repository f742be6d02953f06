/**
 * The API reference at `/docs`: Swagger UI served from the `swagger-ui-dist` npm package, reading
 * `/openapi.json`. Nothing is fetched from a CDN (these machines are offline, and a reference page should not
 * leak its readers to third parties); the Content-Security-Policy forbids any other origin.
 *
 * "Try it out" sends its requests to the service that served the page: the contract's server is a `{base_url}`
 * template whose default is the default address (http://127.0.0.1:3000), which is wrong for a service on another
 * PORT or HOST, or behind a proxy. The page's own origin is the address its reader reaches the service at, whatever
 * the settings, so the page puts it first in the server list; `/openapi.json` itself stays the published contract.
 */

import { createRequire } from "node:module";
import { dirname } from "node:path";
import express, { type Router } from "express";

const ASSETS = ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-32x32.png"];

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets inline styles on elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Service Platform API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// A file, not an inline script, so that the CSP can stay at script-src 'self'. The plugin wraps the action that
// receives the parsed document (before Swagger UI resolves it and picks the first server).
const INIT = `const thisService = () => ({
  statePlugins: {
    spec: {
      wrapActions: {
        updateJsonSpec: (original) => (spec) => {
          if (!spec || typeof spec !== "object" || !Array.isArray(spec.servers)) return original(spec);
          const here = { url: window.location.origin, description: "This service: the address this page came from" };
          return original({ ...spec, servers: [here, ...spec.servers.filter((server) => server.url !== here.url)] });
        },
      },
    },
  },
});

window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [thisService],
  layout: "BaseLayout",
});
`;

export function docsRouter(): Router {
  const assetsDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const router = express.Router();
  router.use("/docs", (_req, res, next) => {
    res.setHeader("Content-Security-Policy", CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    next();
  });
  router.get("/docs", (_req, res) => {
    res.type("html").send(PAGE);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("text/javascript").send(INIT);
  });
  router.get("/docs/assets/:file", (req, res, next) => {
    const file = req.params.file;
    if (!ASSETS.includes(file)) {
      next();
      return;
    }
    res.sendFile(file, { root: assetsDir, maxAge: "1d" });
  });
  return router;
}
