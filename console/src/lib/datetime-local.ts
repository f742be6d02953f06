/**
 * The value of an `<input type="datetime-local">` is a wall-clock time without an offset (`2026-11-01T08:05`), read
 * in the reader's time zone (HTML § 2.3.5.5, "local date and time"); the contract's instants are RFC 3339 with one.
 */

const pad = (value: number) => String(value).padStart(2, "0");

/**
 * An instant as the input's value in the reader's time zone, to the minute (rounded down, so that a window that starts
 * there still holds the instant).
 *
 * @example toDateTimeLocal(new Date(2026, 10, 1, 8, 5, 59)) // "2026-11-01T08:05"
 */
export function toDateTimeLocal(instant: Date): string {
  const date = `${instant.getFullYear()}-${pad(instant.getMonth() + 1)}-${pad(instant.getDate())}`;
  return `${date}T${pad(instant.getHours())}:${pad(instant.getMinutes())}`;
}

/** The input's value as an instant (ISO 8601 in UTC); undefined when it holds no complete date and time. */
export function fromDateTimeLocal(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  // Without an offset, Date parses a date-time form as local time (ECMA-262 § 21.4.3.2).
  const instant = new Date(value);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
}
