import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { CONSOLE_ROUTES } from "./src/routes.ts";

/**
 * Writes `routes.json` beside `index.html`: the server answers `index.html` for these paths only, so that an
 * unknown path (a typo under `/v1`, a probe) stays a 404 problem, not a page.
 */
function routesManifest(): Plugin {
  return {
    name: "console-routes-manifest",
    generateBundle() {
      this.emitFile({ type: "asset", fileName: "routes.json", source: `${JSON.stringify(CONSOLE_ROUTES, null, 2)}\n` });
    },
  };
}

export default defineConfig({
  plugins: [react(), routesManifest()],
  build: {
    // No inline scripts or data: URLs for scripts: the server's CSP is script-src 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: {
    proxy: { "/api": "http://127.0.0.1:3000" },
  },
});
