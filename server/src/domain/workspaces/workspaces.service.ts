/** Workspaces: the wire shape. A workspace is made with its owner's account (auth.service.ts, the admin CLI). */
import type { components } from "@service/spec/schema";
import type { WorkspaceRow } from "./workspaces.store.ts";

type Workspace = components["schemas"]["Workspace"];

export function toWorkspace(row: WorkspaceRow): Workspace {
  return { id: row.id, object: "workspace", name: row.name, created_at: row.created_at.toISOString() };
}
