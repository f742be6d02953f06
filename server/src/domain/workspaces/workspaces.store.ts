/** All SQL of workspaces. */
import type { Queryable } from "../../db/queryable.ts";
import { scopeOf } from "../modes.ts";

export interface WorkspaceRow {
  id: string;
  name: string;
  created_at: Date;
}

/** A new workspace and its test scope (modes.ts), in one statement. */
export async function insertWorkspace(db: Queryable, workspace: { id: string; name: string }): Promise<void> {
  await db.query("INSERT INTO workspaces (id, name) VALUES ($1, $3), ($2, $3)", [
    workspace.id,
    scopeOf(workspace.id, "test"),
    workspace.name,
  ]);
}

/** Whether a workspace (not a test scope) has this id. */
export async function workspaceExists(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query("SELECT 1 FROM workspaces WHERE id = $1 AND live_workspace_id IS NULL", [id]);
  return Boolean(rowCount);
}

/** The newest workspaces, each with the address of its first user (its owner). */
export async function listWorkspaceRows(
  db: Queryable,
  limit: number,
): Promise<(WorkspaceRow & { owner_email: string | null })[]> {
  const { rows } = await db.query<WorkspaceRow & { owner_email: string | null }>(
    `SELECT w.id, w.name, w.created_at,
            (SELECT u.email FROM users u WHERE u.workspace_id = w.id ORDER BY u.id LIMIT 1) AS owner_email
       FROM workspaces w WHERE w.live_workspace_id IS NULL ORDER BY w.id DESC LIMIT $1`,
    [limit],
  );
  return rows;
}
