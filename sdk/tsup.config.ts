import { defineConfig } from "tsup";

// ESM (.js) and CommonJS (.cjs), each with its own declarations (.d.ts, .d.cts), so that TypeScript under every
// moduleResolution sees the format it will really load. `generated/schema` is the `./schema` subpath (types only).
export default defineConfig([
  {
    entry: { index: "src/index.ts", "generated/schema": "src/generated/schema.ts" },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    target: "node20",
    platform: "neutral",
    // openapi-fetch stays a dependency, resolved by the consumer (it ships ESM and CJS itself).
    external: ["openapi-fetch"],
  },
  // The command line (`npx @service/sdk listen`): Node.js only, ESM, no declarations.
  { entry: { cli: "src/cli.ts" }, format: ["esm"], target: "node20", platform: "node", external: ["openapi-fetch"] },
]);
