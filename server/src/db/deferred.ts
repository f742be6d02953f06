/**
 * Statements that travel with a transaction's COMMIT. A write whose result the handler does not need (an event and its
 * deliveries) joins the query that commits instead of taking a round trip of its own; it is still in the transaction,
 * so it commits or rolls back with the change it describes.
 *
 * `withTransaction` and `idempotentWrite` open a list on their client for one transaction and send it ahead of their
 * COMMIT; on a client without an open list (a bare pool or client), `deferToCommit` says no and the caller runs the
 * statement itself. A query of several statements takes no parameters, so deferred statements carry their values as
 * escaped literals (`pg.escapeLiteral`).
 */
const lists = new WeakMap<object, string[]>();

/** Starts this client's list for the transaction it is about to run. */
export function openDeferred(client: object): void {
  lists.set(client, []);
}

/** Adds `statement` to the list of the transaction running on `db`; false when `db` runs none. */
export function deferToCommit(db: object, statement: string): boolean {
  const list = lists.get(db);
  if (!list) return false;
  list.push(statement);
  return true;
}

/** Ends this client's list: its statements, each ended by `;`, to send before COMMIT ("" when none). */
export function takeDeferred(client: object): string {
  const list = lists.get(client);
  lists.delete(client);
  return list && list.length > 0 ? `${list.join(";\n")};\n` : "";
}
