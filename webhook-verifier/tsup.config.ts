import { defineConfig } from "tsup";

// Two builds of one API, each as ESM (.js) and CommonJS (.cjs) with its own declarations (.d.ts, .d.cts):
// `node` (node:crypto), chosen by the `node` export condition, and `index` (WebCrypto) for every other runtime.
export default defineConfig({
  entry: { index: "src/index.ts", node: "src/node.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  // One copy of the shared code in each file: a chunk shared by the two builds would only save bytes on disk.
  splitting: false,
  external: ["node:crypto"],
});
