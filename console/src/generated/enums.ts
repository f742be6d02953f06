/**
 * Generated from spec/generated/openapi.yaml by spec/scripts/generate.ts (enum values).
 * Do not edit: change the TypeSpec and run `npm run generate`.
 */

import type { components } from "@service/spec/schema";

/** Every value of `Scope`, in the contract's order. */
export const SCOPES = ["leads:read","leads:write","conversations:read","conversations:write","tickets:read","tickets:write","webhooks:read","webhooks:write","events:read","attributes:read","attributes:write","test_data:write"] as const satisfies readonly components["schemas"]["Scope"][];

/** Every value of `EventType`, in the contract's order. */
export const EVENT_TYPES = ["lead.captured","lead.updated","lead.deleted","conversation.created","conversation.updated","message.created","ticket.updated","attribute_definition.created","attribute_definition.updated","attribute_definition.archived"] as const satisfies readonly components["schemas"]["EventType"][];

/** Every value of `AttributeObject`, in the contract's order. */
export const ATTRIBUTE_OBJECTS = ["lead","conversation","ticket"] as const satisfies readonly components["schemas"]["AttributeObject"][];

/** Every value of `AttributeType`, in the contract's order. */
export const ATTRIBUTE_TYPES = ["string","number","boolean","date","datetime","enum","multi_enum","email","url"] as const satisfies readonly components["schemas"]["AttributeType"][];
