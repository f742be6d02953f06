/**
 * What JSON and RFC 3339 allow but PostgreSQL cannot store, refused at the edge with a 400 that names the field
 * (otherwise a key holder could turn any write or filter into a 500):
 * - U+0000 in any string: PostgreSQL text and jsonb cannot hold it (SQLSTATE 22021 / 22P05);
 * - an unpaired UTF-16 surrogate: not a Unicode scalar value, refused by jsonb and meaningless in UTF-8;
 * - JSON nested deeper than the contract allows: `custom_attributes` values nest at most
 *   `CUSTOM_ATTRIBUTES_MAX_DEPTH` levels, any body at most `BODY_MAX_DEPTH` (deeper ones overflow the stack of
 *   recursive serialisers);
 * - RFC 3339 date-times outside PostgreSQL's `timestamptz`: year 0000, an offset beyond ±15:59, a day that the
 *   month does not have (`isStorableDateTime`, installed as the contract check's `date-time` format).
 */
import { AppError, type FieldError } from "../errors.ts";

export const BODY_MAX_DEPTH = 32;
const CUSTOM_ATTRIBUTES_MAX_DEPTH = 5;
/** PostgreSQL's limit on a UTC offset (its "time zone displacement"), tighter than RFC 3339's 23:59. */
const MAX_OFFSET_MINUTES = 15 * 60 + 59;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 date-time (RFC 3339 §5.6) that PostgreSQL's timestamptz can hold. */
export function isStorableDateTime(value: string): boolean {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) =>
    Number(match[i] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  if (day > new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeapYear(year) ? -1 : 0)) return false;
  if (hour > 23 || minute > 59 || second > 59 || offsetMinutes > 59) return false;
  if (offsetHours * 60 + offsetMinutes > MAX_OFFSET_MINUTES) return false;
  const utc = new Date(value.toUpperCase().replace(" ", "T"));
  const utcYear = utc.getUTCFullYear();
  return !Number.isNaN(utc.getTime()) && utcYear >= 1 && utcYear <= 9999;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Why a string cannot be stored, or undefined. */
export function unstorableString(value: string): string | undefined {
  if (value.includes("\u0000")) return "must not contain U+0000 (NUL)";
  // A lone high surrogate (not followed by a low one) or a lone low surrogate (not preceded by a high one).
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value))
    return "must not contain an unpaired UTF-16 surrogate";
  return undefined;
}

/**
 * Every problem of a parsed JSON value (or query object), with field paths as the contract check writes them
 * (`body.custom_attributes.plan`). Iterative, so that depth itself cannot overflow the stack; stops at `limit`.
 */
export function unstorableFields(root: unknown, prefix: string, limit = 20): FieldError[] {
  const problems: FieldError[] = [];
  const stack: { value: unknown; path: string; depth: number; attributeDepth: number | undefined }[] = [
    { value: root, path: prefix, depth: 0, attributeDepth: undefined },
  ];
  while (stack.length > 0 && problems.length < limit) {
    const { value, path, depth, attributeDepth } = stack.pop() as (typeof stack)[number];
    if (typeof value === "string") {
      const problem = unstorableString(value);
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
      const keyProblem = unstorableString(key);
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

/** Refuses a request whose query or body holds what cannot be stored (after body parsing, before validation). */
export function refuseUnstorable(query: Record<string, unknown>, body: unknown): void {
  if (body === undefined && isEmpty(query)) return;
  const problems = [...unstorableFields(query, "query"), ...unstorableFields(body, "body")];
  if (problems.length > 0) throw new AppError("VALIDATION_FAILED", { errors: problems });
}
