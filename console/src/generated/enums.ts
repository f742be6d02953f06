/**
 * Generated from spec/generated/openapi.yaml by spec/scripts/generate.ts (enum values).
 * Do not edit: change the TypeSpec and run `npm run generate`.
 */

import type { components } from "@service/spec/schema";

/** Every value of `Scope`, in the contract's order. */
export const SCOPES = ["leads:read","leads:write","conversations:read","conversations:write","tickets:read","tickets:write","webhooks:read","webhooks:write","events:read","test_data:write"] as const satisfies readonly components["schemas"]["Scope"][];

/** Every value of `EventType`, in the contract's order. */
export const EVENT_TYPES = ["lead.captured","lead.updated","lead.deleted","conversation.created","conversation.updated","message.created","ticket.updated"] as const satisfies readonly components["schemas"]["EventType"][];
