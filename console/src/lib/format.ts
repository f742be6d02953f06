/** Dates as the reader's locale writes them; `null` as the word that fits the column. */
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDateTime(value: string | null | undefined, whenNull = "—"): string {
  if (!value) return whenNull;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : DATE_TIME.format(date);
}

const DAY = { month: "short", day: "numeric" } as const;
const TIME = { hour: "numeric", minute: "2-digit" } as const;
const SHORT = [
  [new Intl.DateTimeFormat(undefined, DAY), new Intl.DateTimeFormat(undefined, { ...DAY, year: "numeric" })],
  [
    new Intl.DateTimeFormat(undefined, { ...DAY, ...TIME }),
    new Intl.DateTimeFormat(undefined, { ...DAY, ...TIME, year: "numeric" }),
  ],
] as const;
/** A week: the longest overlap of a key's rotation, the span in which the hour of a date is worth its width. */
const TIME_WORTH_SHOWING_WITHIN_MS = 7 * 24 * 3600 * 1000;

/**
 * A date for a table column, short enough for several to sit beside each other on one line each: the year only when
 * it is not the current one, the time (with `time: "near"`) only within a week of now. In en-US: "Nov 25",
 * "Jan 5, 2027", "Nov 25, 9:58 AM".
 *
 * @example formatShortDate(key.last_used_at, { time: "near", whenNull: "Never" })
 */
export function formatShortDate(
  value: string | null | undefined,
  { time = "never", whenNull = "—", now = new Date() }: { time?: "never" | "near"; whenNull?: string; now?: Date } = {},
): string {
  if (!value) return whenNull;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const near = time === "near" && Math.abs(date.getTime() - now.getTime()) <= TIME_WORTH_SHOWING_WITHIN_MS;
  const [thisYear, otherYear] = SHORT[near ? 1 : 0];
  return (date.getFullYear() === now.getFullYear() ? thisYear : otherYear).format(date);
}

const PERCENT = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });

/**
 * A share from 0 to 1 as a percentage; `null` (nothing settled yet) as "—".
 *
 * @example formatPercent(0.9976) // "99.8%" in en-US
 */
export function formatPercent(share: number | null): string {
  return share === null ? "—" : PERCENT.format(share);
}

/** A duration in milliseconds, as `84 ms`; `null` (no response timed yet) as "—". */
export function formatMilliseconds(ms: number | null): string {
  return ms === null ? "—" : `${Math.round(ms).toLocaleString()} ms`;
}

/** "1 failed delivery", "3 failed deliveries". */
export function countOf(count: number, one: string, many: string): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}
