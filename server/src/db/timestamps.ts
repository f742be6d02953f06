/**
 * A faster parser for `timestamptz` values, installed on pg's global type table. pg's own (postgres-date) runs three
 * regular expressions per value, and every row of a page carries two timestamps, so its cost grows with every page
 * served (its share of a GET: docs/performance.md, "Measurements behind the code's choices"). The form PostgreSQL
 * prints, `2026-11-23 03:15:13.123456+00` (a four-digit year, a fraction of one to six digits, an offset of `±HH` or
 * `±HH:MM`), is read here by position, without a regular expression; any other (a year before 1000, BC, infinity, an
 * offset with seconds) goes to pg's parser. Both give the same Date: the milliseconds are computed with the same
 * arithmetic as pg's (`1000 × the fraction`, truncated by Date.UTC).
 */
import pg from "pg";

const TIMESTAMPTZ = pg.types.builtins.TIMESTAMPTZ;
const fallback: (value: string) => unknown = pg.types.getTypeParser(TIMESTAMPTZ, "text");

const ZERO = 48;
const DASH = 45;
const PLUS = 43;
const COLON = 58;
const DOT = 46;
const SPACE = 32;

/** The decimal number in `value[from, to)`, or NaN when a character is not a digit. */
function digits(value: string, from: number, to: number): number {
  let number = 0;
  for (let at = from; at < to; at++) {
    const digit = value.charCodeAt(at) - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    number = number * 10 + digit;
  }
  return number;
}

/**
 * @example
 * parseTimestamptz("2026-11-23 03:15:13.123456+00").toISOString() // "2026-11-23T03:15:13.123Z"
 */
export function parseTimestamptz(value: string): unknown {
  if (
    value.length < 22 ||
    value.charCodeAt(4) !== DASH ||
    value.charCodeAt(7) !== DASH ||
    value.charCodeAt(10) !== SPACE ||
    value.charCodeAt(13) !== COLON ||
    value.charCodeAt(16) !== COLON
  ) {
    return fallback(value);
  }
  let at = 19;
  let milliseconds = 0;
  if (value.charCodeAt(at) === DOT) {
    const start = ++at;
    while (at < value.length && at - start < 6 && value.charCodeAt(at) >= ZERO && value.charCodeAt(at) <= ZERO + 9)
      at++;
    if (at === start) return fallback(value);
    milliseconds = 1000 * (digits(value, start, at) / 10 ** (at - start));
  }
  const sign = value.charCodeAt(at);
  if (sign !== PLUS && sign !== DASH) return fallback(value);
  const offsetLength = value.length - at - 1;
  let offsetMinutes: number;
  if (offsetLength === 2) offsetMinutes = digits(value, at + 1, at + 3) * 60;
  else if (offsetLength === 5 && value.charCodeAt(at + 3) === COLON) {
    offsetMinutes = digits(value, at + 1, at + 3) * 60 + digits(value, at + 4, at + 6);
  } else return fallback(value);
  const year = digits(value, 0, 4);
  // Date.UTC reads years 0–99 as 1900–1999: those (and every year before 1000) are pg's to parse.
  if (!(year >= 1000)) return fallback(value);
  const time =
    Date.UTC(
      year,
      digits(value, 5, 7) - 1,
      digits(value, 8, 10),
      digits(value, 11, 13),
      digits(value, 14, 16),
      digits(value, 17, 19),
      milliseconds,
    ) -
    (sign === DASH ? -1 : 1) * offsetMinutes * 60_000;
  return Number.isNaN(time) ? fallback(value) : new Date(time);
}

/** Installs the parser for every pg client of this process (the pool, pg-boss, LISTEN clients). */
export function useFastTimestamps(): void {
  pg.types.setTypeParser(TIMESTAMPTZ, parseTimestamptz);
}

/**
 * A `timestamptz` text as the wire writes it (`toISOString()`'s form, milliseconds truncated), without a Date in
 * between: for rows whose timestamps only go to the wire. PostgreSQL's form in a UTC session,
 * `2026-11-23 03:15:13.123456+00`, is rearranged; any other goes through the Date, so both give the same text.
 *
 * @example
 * wireTimestamp("2026-11-23 03:15:13.1+00") // "2026-11-23T03:15:13.100Z"
 */
export function wireTimestamp(value: string): string {
  const end = value.length - 3;
  if (
    end >= 19 &&
    value.charCodeAt(end) === PLUS &&
    value.charCodeAt(end + 1) === ZERO &&
    value.charCodeAt(end + 2) === ZERO &&
    value.charCodeAt(4) === DASH &&
    value.charCodeAt(7) === DASH &&
    value.charCodeAt(10) === SPACE &&
    value.charCodeAt(13) === COLON &&
    value.charCodeAt(16) === COLON &&
    value.charCodeAt(0) !== ZERO &&
    (end === 19 || (value.charCodeAt(19) === DOT && end <= 26 && end > 20)) &&
    !Number.isNaN(digits(value, 0, 4) + digits(value, 5, 7) + digits(value, 8, 10)) &&
    !Number.isNaN(digits(value, 11, 13) + digits(value, 14, 16) + digits(value, 17, 19) + digits(value, 20, end))
  ) {
    // Three digits or more of a fraction (the usual case: microseconds) are already the wire's time of day.
    if (end >= 23) return `${value.slice(0, 10)}T${value.slice(11, 23)}Z`;
    const milliseconds = end === 19 ? "000" : `${value.slice(20, end)}00`.slice(0, 3);
    return `${value.slice(0, 10)}T${value.slice(11, 19)}.${milliseconds}Z`;
  }
  const parsed = parseTimestamptz(value);
  return parsed instanceof Date ? parsed.toISOString() : String(parsed);
}

/** pg's types for a query whose `timestamptz` columns are read as wire text (`wireTimestamp`), the rest as usual. */
export const WIRE_TIMESTAMPS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMPTZ && format !== "binary"
      ? wireTimestamp
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};
