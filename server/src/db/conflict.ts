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
