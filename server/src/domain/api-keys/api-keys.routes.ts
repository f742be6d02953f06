/** HTTP handlers of `/api/workspace/api-keys`: the console's developer settings (session-authenticated). */
import type { OperationHandlers } from "../../http/handler-types.ts";
import type { ApiKeyService } from "./api-keys.service.ts";

export function apiKeyHandlers(deps: { apiKeys: ApiKeyService }): OperationHandlers {
  const { apiKeys } = deps;
  return {
    ApiKeys_list: async ({ principal, query }) => ({
      status: 200,
      body: await apiKeys.list(principal.workspaceId, query),
    }),
    ApiKeys_create: async ({ principal, body }) => ({
      status: 201,
      body: await apiKeys.create(principal.workspaceId, body),
    }),
    ApiKeys_get: async ({ principal, params }) => ({
      status: 200,
      body: await apiKeys.get(principal.workspaceId, params.key_id),
    }),
    ApiKeys_revoke: async ({ principal, params }) => {
      await apiKeys.revoke(principal.workspaceId, params.key_id);
      return { status: 204 };
    },
    ApiKeys_rotate: async ({ principal, params, body }) => {
      const key = await apiKeys.rotate(principal.workspaceId, params.key_id, body.overlap_seconds ?? 86_400);
      return { status: 201, body: key, headers: { Location: `/api/workspace/api-keys/${key.id}` } };
    },
  };
}
