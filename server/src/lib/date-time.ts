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
