/**
 * Generated from spec/generated/openapi.yaml by spec/scripts/generate.ts (openapi-typescript).
 * Do not edit: change the TypeSpec and run `npm run generate`.
 */

export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description Where a conversation takes place.
         * @enum {string}
         */
        Channel: "email" | "chat" | "phone" | "api" | "other";
        /**
         * @description A thread of messages with a lead.
         * @example {
         *       "id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *       "object": "conversation",
         *       "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *       "subject": "Question about pricing",
         *       "channel": "chat",
         *       "state": "open",
         *       "snoozed_until": null,
         *       "assignee": "agent@example.com",
         *       "priority": "normal",
         *       "last_message_at": "2026-11-01T09:31:00Z",
         *       "message_count": 1,
         *       "created_at": "2026-11-01T09:31:00Z",
         *       "updated_at": "2026-11-01T09:31:00Z"
         *     }
         */
        Conversation: {
            id: components["schemas"]["ConversationId"];
            /** @enum {string} */
            object: "conversation";
            lead_id: components["schemas"]["LeadId"] | null;
            subject: string | null;
            channel: components["schemas"]["Channel"];
            state: components["schemas"]["ConversationState"];
            snoozed_until: string | null;
            /** @description Who handles it: an agent's e-mail or your own id for them. */
            assignee: string | null;
            priority: components["schemas"]["Priority"];
            last_message_at: string | null;
            /** Format: int32 */
            message_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The data of `conversation.created`. */
        ConversationCreatedData: {
            object: components["schemas"]["Conversation"];
        };
        /**
         * @description `conversation.created`: `data.object` is the conversation as it was created.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9M",
         *       "object": "event",
         *       "type": "conversation.created",
         *       "timestamp": "2026-11-01T09:31:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *           "object": "conversation",
         *           "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "subject": "Question about pricing",
         *           "channel": "chat",
         *           "state": "open",
         *           "snoozed_until": null,
         *           "assignee": "agent@example.com",
         *           "priority": "normal",
         *           "last_message_at": "2026-11-01T09:31:00Z",
         *           "message_count": 1,
         *           "created_at": "2026-11-01T09:31:00Z",
         *           "updated_at": "2026-11-01T09:31:00Z"
         *         }
         *       }
         *     }
         */
        ConversationCreatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "conversation.created";
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["ConversationCreatedData"];
        };
        /**
         * @description Id of a conversation.
         * @example conv_01JD3Z7A1B2C3D4E5F6G7H8J9K
         */
        ConversationId: string;
        /**
         * @description Lifecycle of a conversation: `open` ⇄ `snoozed` (until `snoozed_until`, then open again), and either to
         *     `closed`; a closed conversation reopens to `open`. Snoozing requires `snoozed_until` in the future.
         * @enum {string}
         */
        ConversationState: "open" | "snoozed" | "closed";
        /**
         * Format: email
         * @description An e-mail address.
         */
        EmailAddress: string;
        /** @description Any event. */
        Event: components["schemas"]["LeadCapturedEvent"] | components["schemas"]["ConversationCreatedEvent"] | components["schemas"]["TicketUpdatedEvent"];
        /**
         * @description Id of an event; also the `webhook-id` of its deliveries.
         * @example evt_01JD3Z7D1B2C3D4E5F6G7H8J9K
         */
        EventId: string;
        /**
         * @description A person or company captured as a potential customer.
         * @example {
         *       "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *       "object": "lead",
         *       "email": "ada@example.com",
         *       "phone": "+44 20 7946 0958",
         *       "name": "Ada Lovelace",
         *       "company": "Analytical Engines Ltd",
         *       "status": "new",
         *       "source": "website",
         *       "tags": [
         *         "trial",
         *         "enterprise"
         *       ],
         *       "custom_attributes": {
         *         "plan": "pro"
         *       },
         *       "external_id": "crm-4821",
         *       "created_at": "2026-11-01T09:30:00Z",
         *       "updated_at": "2026-11-01T09:30:00Z"
         *     }
         */
        Lead: {
            id: components["schemas"]["LeadId"];
            /** @enum {string} */
            object: "lead";
            email: components["schemas"]["EmailAddress"] | null;
            phone: string | null;
            name: string | null;
            company: string | null;
            status: components["schemas"]["LeadStatus"];
            /** @description Where the lead came from, e.g. `website`, `import`, `zapier`. */
            source: string | null;
            tags: components["schemas"]["Tag"][];
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes: {
                [key: string]: unknown;
            };
            /** @description Your own id for this lead, unique in the workspace. */
            external_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The data of `lead.captured`. */
        LeadCapturedData: {
            object: components["schemas"]["Lead"];
        };
        /**
         * @description `lead.captured`: `data.object` is the lead as it was created.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
         *       "object": "event",
         *       "type": "lead.captured",
         *       "timestamp": "2026-11-01T09:30:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "object": "lead",
         *           "email": "ada@example.com",
         *           "phone": "+44 20 7946 0958",
         *           "name": "Ada Lovelace",
         *           "company": "Analytical Engines Ltd",
         *           "status": "new",
         *           "source": "website",
         *           "tags": [
         *             "trial",
         *             "enterprise"
         *           ],
         *           "custom_attributes": {
         *             "plan": "pro"
         *           },
         *           "external_id": "crm-4821",
         *           "created_at": "2026-11-01T09:30:00Z",
         *           "updated_at": "2026-11-01T09:30:00Z"
         *         }
         *       }
         *     }
         */
        LeadCapturedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "lead.captured";
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["LeadCapturedData"];
        };
        /**
         * @description Id of a lead.
         * @example lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7
         */
        LeadId: string;
        /**
         * @description Where a lead is in the sales funnel. Any status may move to any other.
         * @enum {string}
         */
        LeadStatus: "new" | "contacted" | "qualified" | "disqualified" | "converted";
        /**
         * @description Urgency, shared by conversations and tickets.
         * @enum {string}
         */
        Priority: "low" | "normal" | "high" | "urgent";
        /** @description A free-form label. */
        Tag: string;
        /**
         * @description A unit of support work.
         * @example {
         *       "id": "tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K",
         *       "object": "ticket",
         *       "number": 42,
         *       "subject": "Cannot export invoices",
         *       "description": "The export button does nothing since Monday.",
         *       "status": "open",
         *       "priority": "high",
         *       "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *       "conversation_id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *       "assignee": "agent@example.com",
         *       "tags": [
         *         "billing"
         *       ],
         *       "due_at": "2026-11-03T17:00:00Z",
         *       "solved_at": null,
         *       "closed_at": null,
         *       "created_at": "2026-11-01T10:00:00Z",
         *       "updated_at": "2026-11-01T10:05:00Z"
         *     }
         */
        Ticket: {
            id: components["schemas"]["TicketId"];
            /** @enum {string} */
            object: "ticket";
            /**
             * Format: int32
             * @description Sequential per workspace, from 1, without gaps.
             */
            number: number;
            subject: string;
            description: string | null;
            status: components["schemas"]["TicketStatus"];
            priority: components["schemas"]["Priority"];
            lead_id: components["schemas"]["LeadId"] | null;
            conversation_id: components["schemas"]["ConversationId"] | null;
            assignee: string | null;
            tags: components["schemas"]["Tag"][];
            due_at: string | null;
            solved_at: string | null;
            closed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /**
         * @description Id of a ticket (the workspace-wide `number` is separate).
         * @example tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K
         */
        TicketId: string;
        /**
         * @description Lifecycle of a ticket. Legal moves (anything else is a 409 `INVALID_STATE_TRANSITION`):
         *
         *     | from      | to                                         |
         *     |-----------|--------------------------------------------|
         *     | `new`     | `open`, `pending`, `on_hold`, `solved`, `closed` |
         *     | `open`    | `pending`, `on_hold`, `solved`, `closed`   |
         *     | `pending` | `open`, `on_hold`, `solved`, `closed`      |
         *     | `on_hold` | `open`, `pending`, `solved`, `closed`      |
         *     | `solved`  | `open` (reopen), `closed`                  |
         *     | `closed`  | none: closed is final                      |
         *
         *     No ticket ever goes back to `new`. Moving to `solved` sets `solved_at`; to `closed` sets `closed_at`;
         *     reopening clears `solved_at`.
         * @enum {string}
         */
        TicketStatus: "new" | "open" | "pending" | "on_hold" | "solved" | "closed";
        /** @description The data of `ticket.updated`. Creating a ticket is a change too: all its fields are listed then. */
        TicketUpdatedData: {
            object: components["schemas"]["Ticket"];
            /** @description The names of the fields that changed. */
            changed_fields: string[];
            /** @description The values those fields had before the change (absent ones were not set). */
            previous_attributes: {
                [key: string]: unknown;
            };
        };
        /**
         * @description `ticket.updated`: `data.object` is the ticket after the change.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9N",
         *       "object": "event",
         *       "type": "ticket.updated",
         *       "timestamp": "2026-11-01T10:05:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K",
         *           "object": "ticket",
         *           "number": 42,
         *           "subject": "Cannot export invoices",
         *           "description": "The export button does nothing since Monday.",
         *           "status": "open",
         *           "priority": "high",
         *           "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "conversation_id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *           "assignee": "agent@example.com",
         *           "tags": [
         *             "billing"
         *           ],
         *           "due_at": "2026-11-03T17:00:00Z",
         *           "solved_at": null,
         *           "closed_at": null,
         *           "created_at": "2026-11-01T10:00:00Z",
         *           "updated_at": "2026-11-01T10:05:00Z"
         *         },
         *         "changed_fields": [
         *           "status",
         *           "priority"
         *         ],
         *         "previous_attributes": {
         *           "status": "new",
         *           "priority": "normal"
         *         }
         *       }
         *     }
         */
        TicketUpdatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "ticket.updated";
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["TicketUpdatedData"];
        };
        /**
         * @description Id of a workspace.
         * @example ws_01JD3Z7H1B2C3D4E5F6G7H8J9K
         */
        WorkspaceId: string;
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
