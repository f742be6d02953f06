/**
 * Locks that make an upsert matching on a field safe whatever the table's indexes say. A batch upsert looks for the
 * objects its items match and creates those that match none: two calls with the same value, at once, would each find
 * nothing and each create one (a lead's e-mail has no unique index: two leads may share one). Before it looks, each
 * call takes a transaction-scoped advisory lock on each (kind, workspace, field, normalised value) it matches on, so
 * the second waits until the first commits, and its look-up (a later statement, with a later snapshot under READ
 * COMMITTED) finds what the first created.
 *
 * A create that matches nothing (`POST /v1/leads`) takes no lock: it creates whatever exists, so every order of it and a
 * batch is one a client could see when they run one after the other.
 */
import type { Queryable } from "./queryable.ts";

/** The first key of these advisory locks (PostgreSQL's two-key form), so that they meet no other lock of the service. */
const MATCH_LOCK_CLASS = 41_0001;

/** What the matched value is compared as: itself, or in lower case (an e-mail address, as `lower()` compares it). */
export type MatchNormal = "exact" | "lower";

/**
 * Takes the match locks of `values` until the transaction on `db` ends, in the order of their keys, so that two calls
 * matching on several of the same values never wait for each other in a cycle. PostgreSQL computes a volatile
 * function of the select list after the sort (since 9.6), so the locks are taken in that order.
 *
 * @example
 * await lockMatchKeys(client, { kind: "lead", workspaceId, field: "email", normal: "lower" }, ["Ada@example.com"]);
 */
export async function lockMatchKeys(
  db: Queryable,
  scope: { kind: string; workspaceId: string; field: string; normal: MatchNormal },
  values: readonly string[],
): Promise<void> {
  if (values.length === 0) return;
  const value = scope.normal === "lower" ? "lower(v)" : "v";
  await db.query({
    name: `lock-match-keys-${scope.normal}`,
    text: `SELECT pg_advisory_xact_lock($1::int, k)
             FROM (SELECT DISTINCT hashtext($2 || ${value}) AS k FROM unnest($3::text[]) AS v) AS keys
            ORDER BY k`,
    values: [MATCH_LOCK_CLASS, `${scope.kind}:${scope.workspaceId}:${scope.field}:`, values],
  });
}
