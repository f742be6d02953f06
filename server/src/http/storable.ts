/**
 * What JSON and RFC 3339 allow but PostgreSQL cannot store, refused at the edge with a 400 that names the field
 * (otherwise a key holder could turn any write or filter into a 500):
 * - U+0000 in any string: PostgreSQL text and jsonb cannot hold it (SQLSTATE 22021 / 22P05);
 * - bytes of a JSON body that are not UTF-8 (RFC 8259 §8.1, RFC 3629 §3): body-parser decodes each malformed sequence
 *   as U+FFFD, which would be stored as if the client had sent it (`markMalformedUtf8`);
 * - an unpaired UTF-16 surrogate: not a Unicode scalar value, refused by jsonb and meaningless in UTF-8;
 * - JSON nested deeper than the contract allows: `custom_attributes` values nest at most
 *   `CUSTOM_ATTRIBUTES_MAX_DEPTH` levels, any body at most `BODY_MAX_DEPTH` (deeper ones overflow the stack of
 *   recursive serialisers);
 * - RFC 3339 date-times outside PostgreSQL's `timestamptz`: year 0000, an offset beyond ±15:59, a day that the
 *   month does not have (`isStorableDateTime`, installed as the contract check's `date-time` format).
 */
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { AppError, type FieldError } from "../errors.ts";
import { isStorableDateTime } from "../lib/date-time.ts";

export const BODY_MAX_DEPTH = 32;
const CUSTOM_ATTRIBUTES_MAX_DEPTH = 5;

/** Why a string cannot be stored, or undefined. */
export function unstorableString(value: string): string | undefined {
  if (value.includes("\u0000")) return "must not contain U+0000 (NUL)";
  // A lone high surrogate (not followed by a low one) or a lone low surrogate (not preceded by a high one).
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value))
    return "must not contain an unpaired UTF-16 surrogate";
  return undefined;
}

const MALFORMED_UTF8 = Symbol("a body whose bytes are not UTF-8");
const MALFORMED_UTF8_MESSAGE = "must be UTF-8: the body holds bytes that encode no character here (RFC 3629 §3)";

/**
 * express.json's `verify`, given the body's bytes before they are decoded: marks a UTF-8 body that is not UTF-8. Its
 * strings are then refused where they hold U+FFFD, the decoder's stand-in for what could not be read.
 */
export function markMalformedUtf8(req: IncomingMessage, _res: unknown, bytes: Buffer, encoding: string): void {
  if (encoding === "utf-8" && !isUtf8(bytes)) (req as unknown as Record<symbol, boolean>)[MALFORMED_UTF8] = true;
}

/**
 * Every problem of a parsed JSON value (or query object), with field paths as the contract check writes them
 * (`body.custom_attributes.plan`). Iterative, so that depth itself cannot overflow the stack; stops at `limit`.
 * `malformedUtf8`: the value was decoded from bytes that were not all UTF-8, so U+FFFD marks where they were not.
 */
export function unstorableFields(root: unknown, prefix: string, limit = 20, malformedUtf8 = false): FieldError[] {
  const problemOf = (text: string) =>
    unstorableString(text) ?? (malformedUtf8 && text.includes("\uFFFD") ? MALFORMED_UTF8_MESSAGE : undefined);
  const problems: FieldError[] = [];
  const stack: { value: unknown; path: string; depth: number; attributeDepth: number | undefined }[] = [
    { value: root, path: prefix, depth: 0, attributeDepth: undefined },
  ];
  while (stack.length > 0 && problems.length < limit) {
    const { value, path, depth, attributeDepth } = stack.pop() as (typeof stack)[number];
    if (typeof value === "string") {
      const problem = problemOf(value);
      if (problem) problems.push({ path, message: problem });
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= BODY_MAX_DEPTH) {
      problems.push({ path, message: `nests deeper than ${BODY_MAX_DEPTH} levels` });
      continue;
    }
    if (attributeDepth !== undefined && attributeDepth >= CUSTOM_ATTRIBUTES_MAX_DEPTH) {
      problems.push({ path, message: `custom attribute values nest at most ${CUSTOM_ATTRIBUTES_MAX_DEPTH} levels` });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = problemOf(key);
      const itemPath = `${path}.${keyProblem ? JSON.stringify(key) : key}`;
      if (keyProblem) problems.push({ path: itemPath, message: `property name ${keyProblem}` });
      const nextAttributeDepth =
        attributeDepth !== undefined
          ? attributeDepth + 1
          : depth === 1 && path.endsWith(".custom_attributes")
            ? 0
            : undefined;
      stack.push({ value: item, path: itemPath, depth: depth + 1, attributeDepth: nextAttributeDepth });
    }
  }
  return problems;
}

function isEmpty(value: unknown): boolean {
  for (const _ in value as object) return false;
  return true;
}

/**
 * Refuses a request whose query or body holds what cannot be stored (after body parsing, before validation). A body
 * field named in `perItem` (a batch's `items`) is left to the check of each item (schema-check.ts), so that one item
 * that cannot be stored fails alone; but bytes that are not UTF-8 fail the whole body, wherever they are (the body as
 * sent is not JSON text, RFC 8259 §8.1).
 */
export function refuseUnstorable(
  query: Record<string, unknown>,
  body: unknown,
  perItem: string | undefined,
  req: object,
): void {
  if (body === undefined && isEmpty(query)) return;
  const malformed = (req as Record<symbol, boolean | undefined>)[MALFORMED_UTF8] === true;
  const checked =
    perItem !== undefined && !malformed && typeof body === "object" && body !== null && !Array.isArray(body)
      ? { ...body, [perItem]: undefined }
      : body;
  const problems = [...unstorableFields(query, "query"), ...unstorableFields(checked, "body", 20, malformed)];
  if (problems.length > 0) throw new AppError("VALIDATION_FAILED", { errors: problems });
}

const RAW_QUERY = Symbol("query as written");

/** Keeps the query's text as the client wrote it, before the contract check coerces its numbers. */
export function keepQueryText(req: object, query: Record<string, unknown>): void {
  if (isEmpty(query)) return;
  const copy: Record<string, unknown> = {};
  for (const name in query) {
    const value = query[name];
    copy[name] = Array.isArray(value) ? [...value] : value;
  }
  (req as Record<symbol, unknown>)[RAW_QUERY] = copy;
}

/** A number as JSON writes it: no sign but `-`, no leading zero, no hexadecimal, binary, blank or `Infinity`. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** An integer as every client writes one (`String(n)`, `str(n)`): decimal digits, `-` before all but 0. */
const INTEGER = /^(?:0|-?[1-9]\d*)$/;

/**
 * The checked query of `req`, refusing a number the contract check coerced from text that is not how the contract's
 * type is written. The validator reads its parameters with JavaScript's `Number()`: `0x10`, `0b11`, `+5`, ` 5`, `1e1`
 * and `1.0` pass as integers, and `Infinity` or `1e400` as unbounded numbers (its `maximum` does not stop them).
 * One rule, the one the documents state (their `info.description`): a parameter of `type: integer` is written as an
 * integer is, in decimal digits (`wait=1e1` is not 10); any other number as JSON writes it (RFC 8259 §6). A 400 naming
 * the parameter.
 */
export function numbersAsWritten(
  req: object & { query: unknown },
  integers: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const query = req.query as Record<string, unknown>;
  const raw = (req as Record<symbol, Record<string, unknown> | undefined>)[RAW_QUERY] ?? {};
  let errors: FieldError[] | undefined;
  for (const name in query) {
    const texts = raw[name];
    // Not written by the client: the contract's default, which the check filled in.
    if (texts === undefined) continue;
    const value = query[name];
    const values = Array.isArray(value) ? value : [value];
    // A delimited array (`style: form`, `explode: false`) is one text for several values.
    const written = Array.isArray(texts)
      ? texts
      : Array.isArray(value) && typeof texts === "string"
        ? texts.split(",")
        : [texts];
    const form = integers.has(name) ? INTEGER : JSON_NUMBER;
    values.forEach((item, i) => {
      if (typeof item !== "number") return;
      const text = written[i];
      if (Number.isFinite(item) && typeof text === "string" && form.test(text)) return;
      errors ??= [];
      errors.push({
        path: `query.${name}`,
        message:
          form === INTEGER
            ? "must be an integer written in decimal digits, such as 20 (no +, leading zero, fraction or exponent)"
            : "must be a finite number written as JSON writes one, such as 20 or 0.5",
      });
    });
  }
  if (errors) throw new AppError("VALIDATION_FAILED", { errors });
  return query;
}
