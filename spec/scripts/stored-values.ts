/**
 * What the server stores, said in the documents' schemas (post-process.ts, step 11): a `pattern` beside each rule that
 * JSON Schema's keywords leave too wide for PostgreSQL. The server refuses the same values (server/src/http/storable.ts).
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * RFC 3339 date-times as PostgreSQL's timestamptz holds them (the server's `date-time` format, storable.ts), in a
 * `pattern` beside the `format`: no year 0000, an offset written `±hh:mm` of at most ±15:59. `format: date-time`
 * alone takes both, so a generated client or a fuzzer would send what the server refuses.
 */
const STORABLE_DATE_TIME =
  "^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-](0[0-9]|1[0-5]):[0-5][0-9])$";

export function storableDateTimes(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) storableDateTimes(child);
    return;
  }
  if (!isObject(node)) return;
  if (node.format === "date-time" && node.pattern === undefined) node.pattern = STORABLE_DATE_TIME;
  for (const child of Object.values(node)) storableDateTimes(child);
}

/**
 * Text PostgreSQL can store, in a `pattern` on every string that has no rule of its own (a pattern, an enum, a format
 * that refuses it already): no U+0000 (text and jsonb cannot hold it) and no unpaired UTF-16 surrogate (no Unicode
 * scalar value). The server always refused both (storable.ts); written in the schema, a fuzzer or a generated client
 * knows it too (Schemathesis sends U+0000 unless told not to). `\u` escapes read the same in ECMA-262 with the `u`
 * flag (Ajv) and in Python's `re` (jsonschema).
 */
const STORABLE_TEXT = "^[^\\u0000\\uD800-\\uDFFF]*$";
const FORMATS_WITHOUT_NUL = new Set(["email", "uri", "date-time"]);

export function storableStrings(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) storableStrings(child);
    return;
  }
  if (!isObject(node)) return;
  const ruled =
    node.pattern !== undefined ||
    node.enum !== undefined ||
    node.const !== undefined ||
    FORMATS_WITHOUT_NUL.has(String(node.format));
  if (node.type === "string" && !ruled) node.pattern = STORABLE_TEXT;
  for (const child of Object.values(node)) storableStrings(child);
}
