/**
 * Tells a retryable conflict between transactions from other failures: PostgreSQL ended this transaction so that a
 * concurrent one could go on, and nothing of it was kept. Running it again is safe and will most likely succeed. The
 * API answers it 503 `WRITE_CONFLICT` with Retry-After (http/error-handler.ts); the delivery worker runs its write
 * again itself, so that an attempt's outcome is never lost (domain/webhooks/worker.ts).
 */

/** SQLSTATEs of a transaction undone for a concurrent one (PostgreSQL Appendix A). */
const CONFLICT_SQLSTATES = new Set([
  "40P01", // deadlock_detected
  "40001", // serialization_failure
  "55P03", // lock_not_available: lock_timeout ran out, or NOWAIT
]);

export function isRetryableConflict(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === "string" && CONFLICT_SQLSTATES.has(code)) return true;
  return cause !== undefined && cause !== error && isRetryableConflict(cause);
}

/** How many times `retryConflicts` runs a transaction that a conflict ended, the first run included. */
const CONFLICT_RUNS = 5;
/** The most a retry waits before it runs again, in milliseconds, jittered: the write it met commits meanwhile. */
const CONFLICT_BACKOFF_MS = 50;

/**
 * Runs `transaction` again while a retryable conflict ends it, up to CONFLICT_RUNS times in all, after a short random
 * wait; any other failure, or the last conflict, is thrown. `transaction` must be a whole transaction (its work undone
 * by the conflict), such as a `withTransaction` call.
 *
 * @example
 * await retryConflicts(() => withTransaction(pool, (client) => saveOutcomes(client, outcomes)));
 */
export async function retryConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await transaction();
    } catch (error) {
      if (run >= CONFLICT_RUNS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * CONFLICT_BACKOFF_MS * run));
    }
  }
}
