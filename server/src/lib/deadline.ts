/**
 * A deadline that a busy event loop cannot trip by itself. A plain timer that fires after a long synchronous stretch
 * runs before the I/O that arrived meanwhile is read (timers come before the poll phase), so an answer that came in
 * time would be declared late. Here the timer only schedules the verdict for the check phase, after the poll phase
 * has read whatever arrived: only an answer that truly has not come counts as late.
 */
export class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "DeadlineExceeded";
  }
}

/**
 * @example
 * await withDeadline(redis.ping(), 500) // rejects with DeadlineExceeded if Redis has not answered in 500 ms
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new DeadlineExceeded(ms));
      });
    }, ms);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
