/**
 * Paces work to at most `perSecond` items a second: `take(n)` counts n items just started, `delayMs()` is how long
 * to wait before the next. Nothing is saved while idle, so the first batch after a pause starts at once, and no
 * more: a long pause does not buy a burst.
 */
export interface Pacer {
  delayMs(): number;
  take(count: number): void;
}

export function createPacer(perSecond: number, now: () => number = () => performance.now()): Pacer {
  const msPerItem = 1000 / perSecond;
  let readyAt = now();
  return {
    delayMs: () => Math.max(0, readyAt - now()),
    take(count) {
      readyAt = Math.max(readyAt, now()) + count * msPerItem;
    },
  };
}
