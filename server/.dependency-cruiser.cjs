/**
 * The server's layers, which point one way (docs/architecture.md, "The layers, and why they point one way"):
 *
 *   main.ts, service.ts, cluster.ts,    wiring: builds everything, and the process's own settings (V8's flags,
 *   cluster-env.ts, gc-flags.ts,        the worker's CPU priority)
 *   priority.ts, cli/
 *   http/, ops/, domain/**\/*.routes.ts  the HTTP edge: validation, authentication, routes, answers
 *   domain/ (the rest), jobs/, mail/,   rules, state moves, stores and their SQL, limits, background work
 *   rate-limit/
 *   db/, lib/, errors.ts, config.ts,    the ground: connections, pure helpers, the error catalog, settings
 *   logger.ts
 *
 * A module may import from its own layer or the layers below it, never above, and nothing is circular. Every module
 * belongs to a layer: one that matched none would escape the rules.
 * Runs in `npm test` (tests/foundation/layers.test.ts).
 */
const WIRING = "^server/src/(main|service|cluster|cluster-env|gc-flags|priority)\\.ts$|^server/src/cli/";
const HTTP = "^server/src/(http|ops)/|^server/src/domain/.+\\.routes\\.ts$";
const DOMAIN = "^server/src/(domain|jobs|mail|rate-limit)/";
const GROUND = "^server/src/(db|lib)/|^server/src/(errors|config|logger)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "ground-imports-above",
      severity: "error",
      from: { path: GROUND },
      to: { path: `${DOMAIN}|${HTTP}|${WIRING}` },
    },
    {
      name: "domain-imports-http-or-wiring",
      severity: "error",
      from: { path: DOMAIN, pathNot: HTTP },
      to: { path: `${HTTP}|${WIRING}` },
    },
    { name: "http-imports-wiring", severity: "error", from: { path: HTTP }, to: { path: WIRING } },
    {
      name: "module-outside-the-layers",
      severity: "error",
      from: { path: "^server/src/" },
      to: { path: "^server/src/", pathNot: `${WIRING}|${HTTP}|${DOMAIN}|${GROUND}` },
    },
    { name: "no-circular", severity: "error", from: { path: "^server/src/" }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "server/tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
