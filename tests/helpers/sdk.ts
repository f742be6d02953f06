import { createClient, type ServiceClient } from "@service/sdk";
import { workspaceWithKey } from "./accounts.ts";
import type { TestService } from "./service.ts";

export const ALL_SCOPES = [
  "leads:read",
  "leads:write",
  "conversations:read",
  "conversations:write",
  "tickets:read",
  "tickets:write",
  "webhooks:read",
  "webhooks:write",
  "events:read",
  "attributes:read",
  "attributes:write",
  "test_data:write",
];

/** A workspace, an API key with these scopes, and an SDK client using it. */
export async function clientFor(
  service: TestService,
  scopes: string[] = ALL_SCOPES,
): Promise<ServiceClient & { workspaceId: string }> {
  const { key, workspaceId } = await workspaceWithKey(service, scopes);
  return Object.assign(createClient({ apiKey: key, baseUrl: service.url }), { workspaceId });
}

/** Unwraps an openapi-fetch answer, failing the test with the problem when there is one. */
export function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new Error(`HTTP ${result.response.status}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}
