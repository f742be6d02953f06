/**
 * Who is calling, in one shape whichever way they proved it: an API key of a workspace (`/v1`) or a signed-in user
 * of one (the console's `/api/workspace`). Handlers read the workspace from it; the request budget counts by its id.
 */
export interface Principal {
  readonly kind: "api_key" | "session";
  /** The key's id or the user's id. */
  readonly id: string;
  /**
   * The scope of the call's data: the workspace's id in live mode, its test scope in test mode (modes.ts). Every
   * query filters on it; an API key has one mode, a session chooses with `Service-Mode`.
   */
  readonly workspaceId: string;
  /** An API key's scopes; none for a session, whose operations (the console's) require none. */
  readonly scopes: readonly string[];
}
