/**
 * Handlers of the test's making for the app's frame (createApp): every operation answers 204 at once, but for the few
 * a test gives a behaviour. For tests and benchmarks of the HTTP layer without the domain behind it.
 */
import type { OperationHandlers } from "../../server/src/http/handler-types.ts";
import { listOperations, loadOpenApiDocument } from "../../server/src/http/openapi-document.ts";

/** A created lead, as the contract shapes it. */
export const LEAD = {
  id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
  object: "lead",
  livemode: true,
  email: "a@example.com",
  phone: null,
  name: null,
  company: null,
  status: "new",
  source: null,
  tags: [],
  custom_attributes: {},
  external_id: null,
  created_at: "2026-11-24T10:00:00.000Z",
  updated_at: "2026-11-24T10:00:00.000Z",
  version: 1,
};

export function stubHandlers(special: Record<string, (call: never) => Promise<unknown>>): OperationHandlers {
  const table: Record<string, (call: never) => Promise<unknown>> = {};
  for (const { operationId } of listOperations(loadOpenApiDocument().doc)) {
    table[operationId] = special[operationId] ?? (async () => ({ status: 204 }));
  }
  return table as OperationHandlers;
}
