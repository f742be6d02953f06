/**
 * Live and test mode. Every workspace has both: the same members and settings, and two separate worlds of data. A
 * world is named by its scope id, the value every table's `workspace_id` holds: the workspace's own id for live mode,
 * and that id with `_test` for test mode (a row of `workspaces` too, made with the workspace; migration 0018). Every
 * query is already scoped to a `workspace_id`, so an id of one mode is a 404 in the other, and each mode has its own
 * event sequence, idempotency keys and webhooks, without a second key in any table
 * (docs/decisions/0018-test-mode-as-scopes.md).
 */
export type Mode = "live" | "test";

const TEST_SUFFIX = "_test";

/** The scope id of a workspace's mode. */
export function scopeOf(workspaceId: string, mode: Mode): string {
  return mode === "test" ? `${workspaceId}${TEST_SUFFIX}` : workspaceId;
}

/** Whether a scope id is a live one: what every object's and event's `livemode` says. */
export function isLiveScope(scopeId: string): boolean {
  return !scopeId.endsWith(TEST_SUFFIX);
}

/** The workspace a scope belongs to: what an event's `workspace_id` says, in either mode. */
export function workspaceOfScope(scopeId: string): string {
  return isLiveScope(scopeId) ? scopeId : scopeId.slice(0, -TEST_SUFFIX.length);
}
