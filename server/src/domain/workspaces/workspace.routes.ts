/** HTTP handlers of `/api/workspace`: the workspace and its API keys (session-authenticated). */
import type { Response } from "express";
import { AppError } from "../../errors.ts";
import type { JsonBody, QueryOf } from "../../http/handler-types.ts";
import type { OperationHandlers } from "../../http/operations.ts";
import type { ApiKeyService } from "../api-keys/api-keys.service.ts";

function workspaceOf(res: Response) {
  const session = res.locals.session;
  if (!session) throw new AppError("UNAUTHENTICATED");
  return session;
}

export function workspaceHandlers(deps: { apiKeys: ApiKeyService }): OperationHandlers {
  return {
    async WorkspaceSettings_get(_req, res) {
      const session = workspaceOf(res);
      res.status(200).json({
        id: session.workspace_id,
        object: "workspace",
        name: session.workspace_name,
        created_at: session.workspace_created_at.toISOString(),
      });
    },
    async ApiKeys_list(req, res) {
      const query = req.query as QueryOf<"ApiKeys_list">;
      res.status(200).json(await deps.apiKeys.list(workspaceOf(res).workspace_id, query));
    },
    async ApiKeys_create(req, res) {
      const body = req.body as JsonBody<"ApiKeys_create">;
      res.status(201).json(await deps.apiKeys.create(workspaceOf(res).workspace_id, body));
    },
    async ApiKeys_get(req, res) {
      res.status(200).json(await deps.apiKeys.get(workspaceOf(res).workspace_id, String(req.params.key_id)));
    },
    async ApiKeys_revoke(req, res) {
      await deps.apiKeys.revoke(workspaceOf(res).workspace_id, String(req.params.key_id));
      res.status(204).end();
    },
    async ApiKeys_rotate(req, res) {
      const body = req.body as JsonBody<"ApiKeys_rotate">;
      const overlap = body.overlap_seconds ?? 86_400;
      res
        .status(201)
        .json(await deps.apiKeys.rotate(workspaceOf(res).workspace_id, String(req.params.key_id), overlap));
    },
  };
}
