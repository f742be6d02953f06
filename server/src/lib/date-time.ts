/**
 * The instant of an RFC 3339 date-time. JavaScript's `Date` refuses a leap second (`23:59:60`), which RFC 3339 allows
 * and PostgreSQL stores as the second after `23:59:59`: it is read here as PostgreSQL reads it, so that the instant a
 * handler computes with is the one the database keeps.
 *
 * @example
 * instantOf("2016-12-31T23:59:60Z").toISOString(); // "2017-01-01T00:00:00.000Z"
 */
export function instantOf(value: string): Date {
  const direct = new Date(value);
  if (!Number.isNaN(direct.getTime()) || value.slice(17, 19) !== "60") return direct;
  return new Date(new Date(`${value.slice(0, 17)}59${value.slice(19)}`).getTime() + 1000);
}

/** `instantOf(value)` in the API's wire form (`toISOString`). */
export function wireInstant(value: string): string {
  return instantOf(value).toISOString();
}

/** PostgreSQL's limit on a UTC offset (its "time zone displacement"), tighter than RFC 3339's 23:59. */
const MAX_OFFSET_MINUTES = 15 * 60 + 59;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time (RFC 3339 §5.6) that PostgreSQL's timestamptz can hold: the contract's `date-time` format
 * (http/contract-formats.ts) and a `datetime` attribute's values (domain/attribute-definitions).
 *
 * @example
 * isStorableDateTime("2026-11-28T09:30:00+16:00"); // false: PostgreSQL's offsets stop at ±15:59
 */
export function isStorableDateTime(value: string): boolean {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) =>
    Number(match[i] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  if (day > new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeapYear(year) ? -1 : 0)) return false;
  if (hour > 23 || minute > 59 || second > 60 || offsetMinutes > 59) return false;
  if (offsetHours * 60 + offsetMinutes > MAX_OFFSET_MINUTES) return false;
  // A leap second (RFC 3339 §5.7) is the last second of a UTC day, as ajv-formats and PostgreSQL read it.
  const offset = (match[8] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  if (second === 60 && (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 !== 1439) return false;
  const utc = instantOf(value.toUpperCase().replace(" ", "T"));
  const utcYear = utc.getUTCFullYear();
  return !Number.isNaN(utc.getTime()) && utcYear >= 1 && utcYear <= 9999;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
