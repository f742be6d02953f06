/**
 * Generated from spec/generated/openapi.yaml by spec/scripts/generate.ts (openapi-typescript).
 * Do not edit: change the TypeSpec and run `npm run generate`.
 */

export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description A typed field of one kind of object: writes of `custom_attributes.<key>` on that object must then fit its `type`
         *     (and `options`, `required` and `unique`). Keys without a definition keep taking any value.
         * @example {
         *       "id": "attr_01JD3Z7N1B2C3D4E5F6G7H8J9K",
         *       "object": "attribute_definition",
         *       "livemode": true,
         *       "object_type": "lead",
         *       "key": "plan",
         *       "label": "Plan",
         *       "description": "The plan the lead is on.",
         *       "type": "enum",
         *       "options": [
         *         "free",
         *         "pro",
         *         "enterprise"
         *       ],
         *       "required": false,
         *       "unique": false,
         *       "archived_at": null,
         *       "created_at": "2026-11-01T08:00:00Z",
         *       "updated_at": "2026-11-01T08:00:00Z",
         *       "version": 1
         *     }
         */
        AttributeDefinition: {
            id: components["schemas"]["AttributeDefinitionId"];
            /** @enum {string} */
            object: "attribute_definition";
            /** @description `true` for live mode; `false` for test mode, whose definitions a `sk_test_` key makes. */
            livemode: boolean;
            /** @description The kind of object whose `custom_attributes.<key>` it types. */
            object_type: components["schemas"]["AttributeObject"];
            /** @description The key in `custom_attributes`; never changes. */
            key: string;
            label: string;
            description: string | null;
            type: components["schemas"]["AttributeType"];
            /** @description The choices of an `enum` or `multi_enum`; `[]` for the other types. */
            options: components["schemas"]["AttributeOption"][];
            /** @description Every object of its kind must have a value (not null). */
            required: boolean;
            /** @description No two objects of its kind in the workspace may have the same value. */
            unique: boolean;
            /** @description When it was archived: it then checks nothing, and the values stay. */
            archived_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: int32
             * @description 1 when created, one more at each change.
             */
            version: number;
        };
        /**
         * @description `attribute_definition.archived`: `data.object` is the definition as archived.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9W",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "attribute_definition.archived",
         *       "sequence": 10,
         *       "timestamp": "2026-11-01T08:00:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "attr_01JD3Z7N1B2C3D4E5F6G7H8J9K",
         *           "object": "attribute_definition",
         *           "livemode": true,
         *           "object_type": "lead",
         *           "key": "plan",
         *           "label": "Plan",
         *           "description": "The plan the lead is on.",
         *           "type": "enum",
         *           "options": [
         *             "free",
         *             "pro",
         *             "enterprise"
         *           ],
         *           "required": false,
         *           "unique": false,
         *           "archived_at": null,
         *           "created_at": "2026-11-01T08:00:00Z",
         *           "updated_at": "2026-11-01T08:00:00Z",
         *           "version": 1
         *         }
         *       }
         *     }
         */
        AttributeDefinitionArchivedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "attribute_definition.archived";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["AttributeDefinitionData"];
        };
        /**
         * @description `attribute_definition.created`: `data.object` is the new definition.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9T",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "attribute_definition.created",
         *       "sequence": 8,
         *       "timestamp": "2026-11-01T08:00:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "attr_01JD3Z7N1B2C3D4E5F6G7H8J9K",
         *           "object": "attribute_definition",
         *           "livemode": true,
         *           "object_type": "lead",
         *           "key": "plan",
         *           "label": "Plan",
         *           "description": "The plan the lead is on.",
         *           "type": "enum",
         *           "options": [
         *             "free",
         *             "pro",
         *             "enterprise"
         *           ],
         *           "required": false,
         *           "unique": false,
         *           "archived_at": null,
         *           "created_at": "2026-11-01T08:00:00Z",
         *           "updated_at": "2026-11-01T08:00:00Z",
         *           "version": 1
         *         }
         *       }
         *     }
         */
        AttributeDefinitionCreatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "attribute_definition.created";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["AttributeDefinitionData"];
        };
        /** @description The data of `attribute_definition.created` and `.archived`. */
        AttributeDefinitionData: {
            object: components["schemas"]["AttributeDefinition"];
        };
        /**
         * @description Id of an attribute definition.
         * @example attr_01JD3Z7N1B2C3D4E5F6G7H8J9K
         */
        AttributeDefinitionId: string;
        /** @description The data of `attribute_definition.updated`. */
        AttributeDefinitionUpdatedData: {
            object: components["schemas"]["AttributeDefinition"];
            /** @description The names of the fields that changed. */
            changed_fields: string[];
            /** @description The values those fields had before the change (absent ones were not set). */
            previous_attributes: {
                [key: string]: unknown;
            };
        };
        /**
         * @description `attribute_definition.updated`: `data.object` is the definition after the change.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9V",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "attribute_definition.updated",
         *       "sequence": 9,
         *       "timestamp": "2026-11-01T08:00:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "attr_01JD3Z7N1B2C3D4E5F6G7H8J9K",
         *           "object": "attribute_definition",
         *           "livemode": true,
         *           "object_type": "lead",
         *           "key": "plan",
         *           "label": "Plan",
         *           "description": "The plan the lead is on.",
         *           "type": "enum",
         *           "options": [
         *             "free",
         *             "pro",
         *             "enterprise"
         *           ],
         *           "required": false,
         *           "unique": false,
         *           "archived_at": null,
         *           "created_at": "2026-11-01T08:00:00Z",
         *           "updated_at": "2026-11-01T08:00:00Z",
         *           "version": 1
         *         },
         *         "changed_fields": [
         *           "label"
         *         ],
         *         "previous_attributes": {
         *           "label": "Tier"
         *         }
         *       }
         *     }
         */
        AttributeDefinitionUpdatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "attribute_definition.updated";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["AttributeDefinitionUpdatedData"];
        };
        /**
         * @description The objects that carry `custom_attributes`, and so the objects a definition can type.
         * @enum {string}
         */
        AttributeObject: "lead" | "conversation" | "ticket";
        /** @description One choice of an `enum` or `multi_enum` attribute. */
        AttributeOption: string;
        /**
         * @description What values a defined attribute takes.
         * @enum {string}
         */
        AttributeType: "string" | "number" | "boolean" | "date" | "datetime" | "enum" | "multi_enum" | "email" | "url";
        /**
         * @description A custom attribute's value: any JSON nesting at most 5 levels of objects or arrays. JSON Schema has no depth
         *     keyword, so the limit is said by structure: each level's containers hold the level below, the deepest only scalars.
         *     (`x-max-depth` says it in one number; the generated TypeScript types read it as `unknown`.)
         */
        AttributeValue: unknown;
        /**
         * @description Who wrote a message.
         * @enum {string}
         */
        AuthorType: "lead" | "agent" | "system";
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
         *       "livemode": true,
         *       "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *       "subject": "Question about pricing",
         *       "channel": "chat",
         *       "state": "open",
         *       "snoozed_until": null,
         *       "assignee": "agent@example.com",
         *       "priority": "normal",
         *       "last_message_at": "2026-11-01T09:31:00Z",
         *       "message_count": 1,
         *       "custom_attributes": {
         *         "region": "emea"
         *       },
         *       "created_at": "2026-11-01T09:31:00Z",
         *       "updated_at": "2026-11-01T09:31:00Z",
         *       "version": 1
         *     }
         */
        Conversation: {
            id: components["schemas"]["ConversationId"];
            /** @enum {string} */
            object: "conversation";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
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
            /** @description Your own fields (`AttributeDefinition`s type the keys they define); `{}` when none. */
            custom_attributes: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: int32
             * @description 1 when created, one more at each change: a receiver keeps the highest it has seen and drops an older delivery.
             */
            version: number;
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
         *       "livemode": true,
         *       "type": "conversation.created",
         *       "sequence": 2,
         *       "timestamp": "2026-11-01T09:31:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *           "object": "conversation",
         *           "livemode": true,
         *           "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "subject": "Question about pricing",
         *           "channel": "chat",
         *           "state": "open",
         *           "snoozed_until": null,
         *           "assignee": "agent@example.com",
         *           "priority": "normal",
         *           "last_message_at": "2026-11-01T09:31:00Z",
         *           "message_count": 1,
         *           "custom_attributes": {
         *             "region": "emea"
         *           },
         *           "created_at": "2026-11-01T09:31:00Z",
         *           "updated_at": "2026-11-01T09:31:00Z",
         *           "version": 1
         *         }
         *       }
         *     }
         */
        ConversationCreatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "conversation.created";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
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
        /** @description The data of `conversation.updated`. */
        ConversationUpdatedData: {
            object: components["schemas"]["Conversation"];
            /** @description The names of the fields that changed. */
            changed_fields: string[];
            /** @description The values those fields had before the change (absent ones were not set). */
            previous_attributes: {
                [key: string]: unknown;
            };
        };
        /**
         * @description `conversation.updated`: `data.object` is the conversation after the change.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9R",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "conversation.updated",
         *       "sequence": 4,
         *       "timestamp": "2026-11-01T09:45:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *           "object": "conversation",
         *           "livemode": true,
         *           "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "subject": "Question about pricing",
         *           "channel": "chat",
         *           "state": "open",
         *           "snoozed_until": null,
         *           "assignee": "agent@example.com",
         *           "priority": "normal",
         *           "last_message_at": "2026-11-01T09:31:00Z",
         *           "message_count": 1,
         *           "custom_attributes": {
         *             "region": "emea"
         *           },
         *           "created_at": "2026-11-01T09:31:00Z",
         *           "updated_at": "2026-11-01T09:31:00Z",
         *           "version": 1
         *         },
         *         "changed_fields": [
         *           "state"
         *         ],
         *         "previous_attributes": {
         *           "state": "closed"
         *         }
         *       }
         *     }
         */
        ConversationUpdatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "conversation.updated";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["ConversationUpdatedData"];
        };
        /**
         * Format: email
         * @description An e-mail address, its local part at most 64 characters (RFC 5321 §4.5.3.1.1).
         */
        EmailAddress: string;
        /** @description Any event. */
        Event: components["schemas"]["LeadCapturedEvent"] | components["schemas"]["LeadUpdatedEvent"] | components["schemas"]["LeadDeletedEvent"] | components["schemas"]["ConversationCreatedEvent"] | components["schemas"]["ConversationUpdatedEvent"] | components["schemas"]["MessageCreatedEvent"] | components["schemas"]["TicketUpdatedEvent"] | components["schemas"]["AttributeDefinitionCreatedEvent"] | components["schemas"]["AttributeDefinitionUpdatedEvent"] | components["schemas"]["AttributeDefinitionArchivedEvent"];
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
         *       "livemode": true,
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
         *       "updated_at": "2026-11-01T09:30:00Z",
         *       "version": 1
         *     }
         */
        Lead: {
            id: components["schemas"]["LeadId"];
            /** @enum {string} */
            object: "lead";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
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
                [key: string]: components["schemas"]["AttributeValue"];
            };
            /** @description Your own id for this lead, unique in the workspace. */
            external_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: int32
             * @description 1 when created, one more at each change: a receiver keeps the highest it has seen and drops an older delivery.
             */
            version: number;
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
         *       "livemode": true,
         *       "type": "lead.captured",
         *       "sequence": 1,
         *       "timestamp": "2026-11-01T09:30:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "object": "lead",
         *           "livemode": true,
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
         *           "updated_at": "2026-11-01T09:30:00Z",
         *           "version": 1
         *         }
         *       }
         *     }
         */
        LeadCapturedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "lead.captured";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
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
        /** @description The data of `lead.deleted`. */
        LeadDeletedData: {
            object: components["schemas"]["Lead"];
        };
        /**
         * @description `lead.deleted`: `data.object` is the lead as it was when deleted, with one more `version`.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9Q",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "lead.deleted",
         *       "sequence": 9,
         *       "timestamp": "2026-11-01T11:00:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "object": "lead",
         *           "livemode": true,
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
         *           "updated_at": "2026-11-01T09:30:00Z",
         *           "version": 1
         *         }
         *       }
         *     }
         */
        LeadDeletedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "lead.deleted";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["LeadDeletedData"];
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
        /** @description The data of `lead.updated`. */
        LeadUpdatedData: {
            object: components["schemas"]["Lead"];
            /** @description The names of the fields that changed. */
            changed_fields: string[];
            /** @description The values those fields had before the change (absent ones were not set). */
            previous_attributes: {
                [key: string]: unknown;
            };
        };
        /**
         * @description `lead.updated`: `data.object` is the lead after the change.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9P",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "lead.updated",
         *       "sequence": 3,
         *       "timestamp": "2026-11-01T09:40:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
         *           "object": "lead",
         *           "livemode": true,
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
         *           "updated_at": "2026-11-01T09:30:00Z",
         *           "version": 1
         *         },
         *         "changed_fields": [
         *           "status"
         *         ],
         *         "previous_attributes": {
         *           "status": "contacted"
         *         }
         *       }
         *     }
         */
        LeadUpdatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "lead.updated";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["LeadUpdatedData"];
        };
        /**
         * @description One message of a conversation.
         * @example {
         *       "id": "msg_01JD3Z7B1B2C3D4E5F6G7H8J9K",
         *       "object": "message",
         *       "livemode": true,
         *       "conversation_id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *       "author": {
         *         "type": "lead",
         *         "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7"
         *       },
         *       "body": "Hi! Do you offer annual billing?",
         *       "visibility": "public",
         *       "created_at": "2026-11-01T09:31:00Z",
         *       "version": 1
         *     }
         */
        Message: {
            id: components["schemas"]["MessageId"];
            /** @enum {string} */
            object: "message";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            conversation_id: components["schemas"]["ConversationId"];
            author: components["schemas"]["MessageAuthor"];
            body: string;
            visibility: components["schemas"]["MessageVisibility"];
            /** Format: date-time */
            created_at: string;
            /**
             * Format: int32
             * @description 1: a message does not change once written.
             */
            version: number;
        };
        /** @description The author of a message. */
        MessageAuthor: {
            type: components["schemas"]["AuthorType"];
            /** @description The lead's id, or the agent's e-mail or id; null for `system`. */
            id: string | null;
        };
        /** @description The data of `message.created`. */
        MessageCreatedData: {
            object: components["schemas"]["Message"];
        };
        /**
         * @description `message.created`: `data.object` is the new message.
         * @example {
         *       "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9S",
         *       "object": "event",
         *       "livemode": true,
         *       "type": "message.created",
         *       "sequence": 3,
         *       "timestamp": "2026-11-01T09:31:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "msg_01JD3Z7B1B2C3D4E5F6G7H8J9K",
         *           "object": "message",
         *           "livemode": true,
         *           "conversation_id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
         *           "author": {
         *             "type": "lead",
         *             "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7"
         *           },
         *           "body": "Hi! Do you offer annual billing?",
         *           "visibility": "public",
         *           "created_at": "2026-11-01T09:31:00Z",
         *           "version": 1
         *         }
         *       }
         *     }
         */
        MessageCreatedEvent: {
            id: components["schemas"]["EventId"];
            /** @enum {string} */
            object: "event";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "message.created";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
            /**
             * Format: date-time
             * @description When the change happened (RFC 3339, UTC).
             */
            timestamp: string;
            /** @enum {string} */
            api_version: "1.0";
            workspace_id: components["schemas"]["WorkspaceId"];
            data: components["schemas"]["MessageCreatedData"];
        };
        /**
         * @description Id of a message.
         * @example msg_01JD3Z7B1B2C3D4E5F6G7H8J9K
         */
        MessageId: string;
        /**
         * @description Whether the lead can see a message.
         * @enum {string}
         */
        MessageVisibility: "public" | "internal";
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
         *       "livemode": true,
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
         *       "external_id": "zd-1042",
         *       "custom_attributes": {
         *         "plan": "pro"
         *       },
         *       "created_at": "2026-11-01T10:00:00Z",
         *       "updated_at": "2026-11-01T10:05:00Z",
         *       "version": 2
         *     }
         */
        Ticket: {
            id: components["schemas"]["TicketId"];
            /** @enum {string} */
            object: "ticket";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
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
            /** @description Your id of the ticket (from a help desk you sync with), unique in the workspace; null when none was given. */
            external_id: string | null;
            /** @description Your own fields (`AttributeDefinition`s type the keys they define); `{}` when none. */
            custom_attributes: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: int32
             * @description 1 when created, one more at each change: a receiver keeps the highest it has seen and drops an older delivery.
             */
            version: number;
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
         *       "livemode": true,
         *       "type": "ticket.updated",
         *       "sequence": 5,
         *       "timestamp": "2026-11-01T10:05:00Z",
         *       "api_version": "1.0",
         *       "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
         *       "data": {
         *         "object": {
         *           "id": "tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K",
         *           "object": "ticket",
         *           "livemode": true,
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
         *           "external_id": "zd-1042",
         *           "custom_attributes": {
         *             "plan": "pro"
         *           },
         *           "created_at": "2026-11-01T10:00:00Z",
         *           "updated_at": "2026-11-01T10:05:00Z",
         *           "version": 2
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
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "ticket.updated";
            /**
             * Format: int64
             * @description The event's place in its workspace's stream: one more than the event before it, in the order the changes were
             *     committed. A gap means a missed event: `GET /v1/events?after_sequence=` fetches it. A test event
             *     (`POST /v1/webhooks/{webhook_id}/test`) is not in the stream: its `sequence` is 0.
             */
            sequence: number;
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
