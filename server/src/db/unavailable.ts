/**
 * Tells a failure of the database itself (unreachable, restarting, frozen, out of connections) from an error of
 * the query. The first is a 503 with Retry-After that a client may retry; the second stays what it is.
 */

/** SQLSTATEs that mean the server cannot serve now (PostgreSQL Appendix A). */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown: the server is shutting down or a backend was terminated
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or in recovery
  "57014", // query_canceled: statement_timeout ran out
  "53300", // too_many_connections
  "53400", // configuration_limit_exceeded
]);

/** Socket errors of a connection that failed or was cut. */
const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND"]);

/** node-postgres and pg-pool raise these as plain Errors, told apart only by their message. */
const UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "Query read timeout",
  "timeout exceeded when trying to connect",
  "is not queryable",
  "Cannot use a pool after calling end",
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (
    typeof code === "string" &&
    (UNAVAILABLE_ERRNOS.has(code) || code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code))
  )
    return true;
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((text) => message.includes(text))) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause);
}
