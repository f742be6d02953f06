/** Dates as the reader's locale writes them; `null` as the word that fits the column. */
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDateTime(value: string | null | undefined, whenNull = "—"): string {
  if (!value) return whenNull;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : DATE_TIME.format(date);
}
