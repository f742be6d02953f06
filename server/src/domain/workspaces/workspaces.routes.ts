/** HTTP handlers of `/api/workspace`: the signed-in user's workspace (its keys and webhooks have their own folders). */
import { AppError } from "../../errors.ts";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { toWorkspace } from "./workspaces.service.ts";

export function workspaceHandlers(): OperationHandlers {
  return {
    WorkspaceSettings_get: async ({ session }) => {
      // The session's lookup has already read the workspace with the user.
      if (!session) throw new AppError("UNAUTHENTICATED");
      return {
        status: 200,
        body: toWorkspace({
          id: session.workspace_id,
          name: session.workspace_name,
          created_at: session.workspace_created_at,
        }),
      };
    },
  };
}
