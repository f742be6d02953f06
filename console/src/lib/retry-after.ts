/**
 * `Retry-After` (RFC 9110 §10.2.3) as the console words it. The service sends whole seconds (≥ 1); an HTTP date is
 * accepted too, so that a proxy's answer still reads right.
 */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Math.max(1, Number(trimmed));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(1, Math.ceil((date - now) / 1000));
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/**
 * "try again in …", rounded up so that the person never comes back too early: seconds under a minute, minutes up
 * to two hours, hours beyond.
 *
 * @example waitWording(3600) // "60 minutes"
 */
export function waitWording(seconds: number): string {
  if (seconds < 60) return plural(Math.max(1, Math.ceil(seconds)), "second");
  if (seconds <= 2 * 3600) return plural(Math.ceil(seconds / 60), "minute");
  return plural(Math.ceil(seconds / 3600), "hour");
}

/** The sentence shown for a 429. */
export function tooManyAttempts(seconds: number | undefined): string {
  return seconds === undefined
    ? "Too many attempts. Try again later."
    : `Too many attempts. Try again in ${waitWording(seconds)}.`;
}
