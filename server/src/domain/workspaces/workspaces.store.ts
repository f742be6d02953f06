/** All SQL of workspaces. */
import type { Db } from "../../db/db.ts";

export interface WorkspaceRow {
  id: string;
  name: string;
  created_at: Date;
}

export async function insertWorkspace(db: Db, workspace: { id: string; name: string }): Promise<void> {
  await db.query("INSERT INTO workspaces (id, name) VALUES ($1, $2)", [workspace.id, workspace.name]);
}

export async function workspaceExists(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await db.query("SELECT 1 FROM workspaces WHERE id = $1", [id]);
  return Boolean(rowCount);
}
