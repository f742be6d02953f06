/**
 * This package's version, sent in `User-Agent` (a test checks it against package.json).
 *
 * @example
 * console.log(`using @service/sdk ${SDK_VERSION}`);
 */
export const SDK_VERSION = "1.0.0";

/**
 * `service-sdk/<version> node/<version>` where the runtime lets a client set `User-Agent` (Node, Bun, Deno), or
 * undefined in a browser, which forbids the header and would only log an error.
 *
 * @example
 * userAgent(); // "service-sdk/1.0.0 node/20.19.0" under Node
 */
export function userAgent(runtime: unknown = globalThis): string | undefined {
  const scope = runtime as { process?: { versions?: { node?: unknown } }; document?: unknown };
  const node = scope.process?.versions?.node;
  if (typeof node !== "string" || scope.document !== undefined) return undefined;
  return `service-sdk/${SDK_VERSION} node/${node}`;
}
