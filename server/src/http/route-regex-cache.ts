/**
 * Tests and development check responses with express-openapi-validator 5.6.2 (requests are checked by
 * contract-requests.ts), which compiles a path-to-regexp pattern for every route of the contract on every
 * request (`lookupRoute` in middlewares/openapi.metadata.js), about 30 compilations before it reaches
 * `/v1/leads`. `pathToRegexp` is a pure function of its arguments and its regexps carry no state (no `g` flag),
 * so memoizing it is safe; it took 18 % off the CPU time of `GET /v1/leads` when that validator checked requests too. No newer stable
 * validator exists to upgrade to; remove this when one caches its routes.
 */
import { createRequire } from "node:module";

const MAX_PATTERNS = 1_000;
let installed = false;

export function cacheRouteRegexps(): void {
  if (installed) return;
  installed = true;
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
  type Options = { sensitive?: boolean; end?: boolean; trailing?: boolean; delimiter?: string; decode?: unknown };
  const module = validatorRequire("path-to-regexp") as { pathToRegexp: (path: unknown, options?: Options) => unknown };
  const compile = module.pathToRegexp;
  const cache = new Map<string, unknown>();
  module.pathToRegexp = function cachedPathToRegexp(path: unknown, options?: Options) {
    // Only plain patterns with plain options; anything else (a custom decode) is compiled as before.
    if (typeof path !== "string" || options?.decode !== undefined) return compile(path, options);
    // The validator's options on every request (`{ sensitive: false, strict: false }`, Express's defaults;
    // path-to-regexp 8 has no `strict`) are keyed by the path alone: no key is built on the hot path.
    const plain =
      options?.sensitive === false &&
      options.end === undefined &&
      options.trailing === undefined &&
      options.delimiter === undefined;
    const key = plain
      ? path
      : `${path}\u0000${options?.sensitive}\u0000${options?.end}\u0000${options?.trailing}\u0000${options?.delimiter}`;
    let compiled = cache.get(key);
    if (compiled === undefined) {
      compiled = compile(path, options);
      if (cache.size < MAX_PATTERNS) cache.set(key, compiled);
    }
    return compiled;
  };
}
