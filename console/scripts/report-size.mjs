// Prints the JavaScript of the console's first load (the scripts index.html pulls in), gzipped, and fails the
// build past the budget: the console must stay quick on a slow connection.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_BYTES = 200 * 1024;
const dist = new URL("../dist/", import.meta.url).pathname;
const html = readFileSync(join(dist, "index.html"), "utf8");
const scripts = [
  ...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g),
].map((match) => match[1]);
let total = 0;
for (const file of scripts) total += gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kb = (total / 1024).toFixed(1);
console.log(`console: first load ${kb} kB of JavaScript gzipped (${scripts.length} file(s); budget 200 kB)`);
if (scripts.length === 0 || total > BUDGET_BYTES) {
  console.error(scripts.length === 0 ? "console: no script found in dist/index.html" : "console: over the budget");
  process.exit(1);
}
