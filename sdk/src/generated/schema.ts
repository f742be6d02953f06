/**
 * Generated from spec/generated/openapi.yaml by spec/scripts/generate.ts (openapi-typescript).
 * Do not edit: change the TypeSpec and run `npm run generate`.
 */

export interface paths {
    "/api/auth/forgot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request a password reset
         * @description Sends a password-reset e-mail if the account exists. Limits: 5 per hour per IP (429 + `Retry-After`) and
         *     5 per hour per e-mail (200 with `throttled: true` + `Retry-After`, so that nobody learns whether the account
         *     exists).
         */
        post: operations["Auth_forgot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in
         * @description Signs in with e-mail and password; sets the HttpOnly session cookie.
         *
         *     A wrong password, an unknown address and an address whose registration is not verified yet all answer the same
         *     401 `INVALID_CREDENTIALS`, byte for byte but for the request id, so that sign-in does not tell whether an
         *     account exists. When the password matches an unverified registration, its owner is sent a new verification
         *     e-mail (within the limits of `resend-verification`). The 403 `EMAIL_NOT_VERIFIED` of 1.0 is no longer
         *     answered; it stays listed so that clients generated from 1.0 keep compiling.
         */
        post: operations["Auth_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Signs out: revokes the session and expires its cookie.
         */
        post: operations["Auth_logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register
         * @description Registers an account and sends a verification e-mail. Limits: 5 per hour per IP and 5 per hour per e-mail
         *     (429 + `Retry-After`). A disposable address is a 400 `DISPOSABLE_EMAIL` and costs no budget. While registration
         *     is by invitation, `invite_code` is required.
         */
        post: operations["Auth_register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/registration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the registration settings
         * @description How registration works here: `open`, or `invite` when `register` requires an invite code. Sign-up forms (the
         *     console's among them) read it to know whether to ask for the code. Answers the same to everyone.
         */
        get: operations["Auth_registration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/resend-verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend the verification e-mail
         * @description Sends the verification e-mail again if the account exists and is unverified. Limits: 50 per day per IP
         *     (429 + `Retry-After`); per e-mail a 60-second cooldown and 10 per day (200 with `throttled: true` +
         *     `Retry-After`).
         */
        post: operations["Auth_resendVerification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset the password
         * @description Sets a new password with the token from the reset e-mail, and signs out every session of the account.
         */
        post: operations["Auth_reset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the session
         * @description The signed-in user, workspace and CSRF token.
         */
        get: operations["Auth_session"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify an e-mail address
         * @description Verifies the e-mail address with the token from the verification e-mail, and creates the user's workspace.
         */
        post: operations["Auth_verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the workspace
         * @description The workspace of the signed-in user.
         */
        get: operations["WorkspaceSettings_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Lists the workspace's API keys, newest first: prefixes only, never values.
         */
        get: operations["ApiKeys_list"];
        put?: never;
        /**
         * Create an API key
         * @description Creates an API key with the chosen scopes. The answer holds the key; it is never shown again. Not idempotent
         *     by key: a replay would need the secret stored for 24 hours; list the keys to see whether a retry is needed.
         */
        post: operations["ApiKeys_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an API key
         * @description Retrieves an API key (never its value).
         */
        get: operations["ApiKeys_get"];
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revokes an API key at once.
         */
        delete: operations["ApiKeys_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/api-keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description Rotates an API key: a new key with the same name and scopes, while the old one keeps working for
         *     `overlap_seconds` (default 24 hours) so that clients can switch without downtime. Not idempotent by key, for
         *     the same reason as creation.
         */
        post: operations["ApiKeys_rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/attribute-definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's attribute definitions
         * @description Lists the definitions of the workspace's mode, newest first.
         */
        get: operations["WorkspaceAttributeDefinitions_list"];
        put?: never;
        /**
         * Create an attribute definition in the console
         * @description Defines a field, as `POST /v1/attribute-definitions` does.
         */
        post: operations["WorkspaceAttributeDefinitions_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/attribute-definitions/{attribute_definition_id}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive an attribute definition in the console
         * @description Archives a definition, as `POST /v1/attribute-definitions/{id}/archive` does.
         */
        post: operations["WorkspaceAttributeDefinitions_archive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's events
         * @description Lists the events of the workspace's mode, newest first.
         */
        get: operations["WorkspaceEvents_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook subscriptions
         * @description Lists the workspace's subscriptions, newest first.
         */
        get: operations["WorkspaceWebhooks_list"];
        put?: never;
        /**
         * Create a webhook subscription
         * @description Creates a subscription. The answer holds its signing `secret`, shown only now and on rotation.
         */
        post: operations["WorkspaceWebhooks_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook subscription
         * @description Retrieves a subscription (without its secret).
         */
        get: operations["WorkspaceWebhooks_get"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook subscription
         * @description Deletes a subscription; pending deliveries to it are dropped.
         */
        delete: operations["WorkspaceWebhooks_delete"];
        options?: never;
        head?: never;
        /**
         * Update a webhook subscription
         * @description Changes a subscription: URL, events, description, or `enabled` to disable or re-enable it.
         */
        patch: operations["WorkspaceWebhooks_update"];
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries
         * @description Lists the deliveries of a subscription with each attempt, newest first.
         */
        get: operations["WorkspaceWebhooks_listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/deliveries/{delivery_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a delivery
         * @description Retrieves one delivery with each attempt.
         */
        get: operations["WorkspaceWebhooks_getDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver
         * @description Sends the delivery's event again, as a new delivery with the same `webhook-id`.
         */
        post: operations["WorkspaceWebhooks_redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover failed deliveries
         * @description Sends again, in one call, what the subscription did not receive in a window: every delivery made in it that ended
         *     failed, oldest first, each with its original `webhook-id` and body; with `include_missed`, also the events of its
         *     types that happened while it was disabled, in `sequence` order. The answer says how many; the sending runs in the
         *     background at the subscription's own pace (its throttles). Deliveries still pending, or that fail after this call,
         *     are not part of it. With `dry_run`, only counts.
         */
        post: operations["WorkspaceWebhooks_recover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook secret
         * @description Issues a new signing secret. For 24 hours deliveries carry two signatures, one with each secret, so
         *     receivers can switch without losing a delivery.
         */
        post: operations["WorkspaceWebhooks_rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get delivery statistics
         * @description The subscription's health over a window: its deliveries by state, the attempts made for them, the share that
         *     succeeded and the receiver's response times.
         */
        get: operations["WorkspaceWebhooks_stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspace/webhooks/{webhook_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends a sample event of the given type to the subscription, signed like any other delivery.
         */
        post: operations["WorkspaceWebhooks_sendTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/attribute-definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List attribute definitions
         * @description Lists the definitions, newest first; archived ones only with `include_archived=true`.
         */
        get: operations["AttributeDefinitions_list"];
        put?: never;
        /**
         * Create an attribute definition
         * @description Defines a field. Refused with 409 `ATTRIBUTE_VALUES_CONFLICT` when objects already hold values under `key` that
         *     do not fit it, with 409 `ATTRIBUTE_KEY_TAKEN` when the kind of object has the key already, and with 409
         *     `RESOURCE_LIMIT_REACHED` past 100 definitions of the kind.
         */
        post: operations["AttributeDefinitions_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/attribute-definitions/{attribute_definition_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an attribute definition
         * @description Retrieves a definition, archived or not.
         */
        get: operations["AttributeDefinitions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an attribute definition
         * @description Changes a definition's label, description, options (adding only), `required` or `unique`; a change that existing
         *     values do not fit is refused (409 `ATTRIBUTE_VALUES_CONFLICT`). An archived definition cannot change (409).
         */
        patch: operations["AttributeDefinitions_update"];
        trace?: never;
    };
    "/v1/attribute-definitions/{attribute_definition_id}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive an attribute definition
         * @description Archives a definition: it stops checking writes, the values stay, and its key stays taken.
         */
        post: operations["AttributeDefinitions_archive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List conversations
         * @description Lists conversations, newest first. Filters combine with AND.
         */
        get: operations["Conversations_list"];
        put?: never;
        /**
         * Create a conversation
         * @description Creates a conversation, optionally with its first message, and emits `conversation.created`.
         */
        post: operations["Conversations_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{conversation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a conversation
         * @description Retrieves a conversation.
         */
        get: operations["Conversations_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a conversation
         * @description Changes the state, assignee, priority, subject or snooze of a conversation.
         */
        patch: operations["Conversations_update"];
        trace?: never;
    };
    "/v1/conversations/{conversation_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages
         * @description Lists the messages of a conversation, newest first.
         */
        get: operations["Conversations_listMessages"];
        put?: never;
        /**
         * Add a message
         * @description Adds a message to a conversation.
         */
        post: operations["Conversations_createMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{conversation_id}/messages/{message_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a message
         * @description Retrieves a message of a conversation.
         */
        get: operations["Conversations_getMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List event types
         * @description Lists every kind of event with its description and the JSON Schema of its `data`.
         */
        get: operations["EventTypes_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events
         * @description Lists events: newest first, or after `after_sequence` oldest first.
         */
        get: operations["Events_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/{event_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an event
         * @description Retrieves an event.
         */
        get: operations["Events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List leads
         * @description Lists leads, newest first. Filters combine with AND.
         */
        get: operations["Leads_list"];
        put?: never;
        /**
         * Create a lead
         * @description Creates a lead and emits `lead.captured`.
         */
        post: operations["Leads_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leads/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create or update leads in a batch
         * @description Creates or updates up to 100 leads in one call, matched on `external_id` or `email`, with one result per item in
         *     order. One `Idempotency-Key` covers the whole batch: a retry answers the first answer and writes nothing. Each item
         *     that changed something emits its own event (`lead.captured` or `lead.updated`); an unchanged one emits none.
         */
        post: operations["Leads_batchUpsert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leads/{lead_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a lead
         * @description Retrieves a lead.
         */
        get: operations["Leads_get"];
        put?: never;
        post?: never;
        /**
         * Delete a lead
         * @description Deletes a lead. Its conversations and tickets keep their history with `lead_id` cleared.
         */
        delete: operations["Leads_delete"];
        options?: never;
        head?: never;
        /**
         * Update a lead
         * @description Changes the given fields of a lead.
         */
        patch: operations["Leads_update"];
        trace?: never;
    };
    "/v1/test-data/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset the test data
         * @description Deletes the workspace's test data in the background: every test lead, conversation, message, ticket, event,
         *     delivery and idempotency key, and the test feed starts again at `sequence` 1 (a follower past
         *     the new end gets 410 `EVENTS_RESET`; every page of `GET /v1/events` says `restarted_at`). Live data, API keys and
         *     webhook subscriptions are untouched. While one reset is pending or running, asking again answers that one.
         */
        post: operations["TestData_reset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/test-data/resets/{reset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a reset of the test data
         * @description A reset of the test data: poll it until `status` is `succeeded` or `failed`.
         */
        get: operations["TestData_getReset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tickets
         * @description Lists tickets, newest first. Filters combine with AND.
         */
        get: operations["Tickets_list"];
        put?: never;
        /**
         * Create a ticket
         * @description Creates a ticket with the next `number` of the workspace, and emits `ticket.updated`.
         */
        post: operations["Tickets_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tickets/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create or update tickets in a batch
         * @description Creates or updates up to 100 tickets in one call, matched on `external_id`, with one result per item in order.
         *     One `Idempotency-Key` covers the whole batch: a retry answers the first answer and writes nothing. Each item that
         *     changed something emits its own `ticket.updated`; an unchanged one emits none.
         */
        post: operations["Tickets_batchUpsert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tickets/{ticket_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a ticket
         * @description Retrieves a ticket.
         */
        get: operations["Tickets_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a ticket
         * @description Changes a ticket; `status` must follow the legal moves of `TicketStatus`. Emits `ticket.updated`.
         */
        patch: operations["Tickets_update"];
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook subscriptions
         * @description Lists the workspace's subscriptions, newest first.
         */
        get: operations["Webhooks_list"];
        put?: never;
        /**
         * Create a webhook subscription
         * @description Creates a subscription. The answer holds its signing `secret`, shown only now and on rotation.
         */
        post: operations["Webhooks_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook subscription
         * @description Retrieves a subscription (without its secret).
         */
        get: operations["Webhooks_get"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook subscription
         * @description Deletes a subscription; pending deliveries to it are dropped.
         */
        delete: operations["Webhooks_delete"];
        options?: never;
        head?: never;
        /**
         * Update a webhook subscription
         * @description Changes a subscription: URL, events, description, or `enabled` to disable or re-enable it.
         */
        patch: operations["Webhooks_update"];
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries
         * @description Lists the deliveries of a subscription with each attempt, newest first.
         */
        get: operations["Webhooks_listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a delivery
         * @description Retrieves one delivery with each attempt.
         */
        get: operations["Webhooks_getDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeliver
         * @description Sends the delivery's event again, as a new delivery with the same `webhook-id`.
         */
        post: operations["Webhooks_redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover failed deliveries
         * @description Sends again, in one call, what the subscription did not receive in a window: every delivery made in it that ended
         *     failed, oldest first, each with its original `webhook-id` and body; with `include_missed`, also the events of its
         *     types that happened while it was disabled, in `sequence` order. The answer says how many; the sending runs in the
         *     background at the subscription's own pace (its throttles). Deliveries still pending, or that fail after this call,
         *     are not part of it. With `dry_run`, only counts.
         */
        post: operations["Webhooks_recover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook secret
         * @description Issues a new signing secret. For 24 hours deliveries carry two signatures, one with each secret, so
         *     receivers can switch without losing a delivery.
         */
        post: operations["Webhooks_rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get delivery statistics
         * @description The subscription's health over a window: its deliveries by state, the attempts made for them, the share that
         *     succeeded and the receiver's response times.
         */
        get: operations["Webhooks_stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends a sample event of the given type to the subscription, signed like any other delivery.
         */
        post: operations["Webhooks_sendTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "attribute_definition.archived": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * attribute_definition.archived
         * @description Sent when an attribute definition is archived.
         */
        post: operations["WebhookEvents_attributeDefinitionArchived"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "attribute_definition.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * attribute_definition.created
         * @description Sent when an attribute definition is made.
         */
        post: operations["WebhookEvents_attributeDefinitionCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "attribute_definition.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * attribute_definition.updated
         * @description Sent when an attribute definition changes.
         */
        post: operations["WebhookEvents_attributeDefinitionUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "conversation.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * conversation.created
         * @description Sent when a conversation is created.
         */
        post: operations["WebhookEvents_conversationCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "conversation.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * conversation.updated
         * @description Sent when a conversation changes.
         */
        post: operations["WebhookEvents_conversationUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "lead.captured": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * lead.captured
         * @description Sent when a lead is created.
         */
        post: operations["WebhookEvents_leadCaptured"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "lead.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * lead.deleted
         * @description Sent when a lead is deleted.
         */
        post: operations["WebhookEvents_leadDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "lead.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * lead.updated
         * @description Sent when a lead changes.
         */
        post: operations["WebhookEvents_leadUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "message.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * message.created
         * @description Sent when a message is added to a conversation.
         */
        post: operations["WebhookEvents_messageCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "ticket.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * ticket.updated
         * @description Sent when a ticket is created or changed.
         */
        post: operations["WebhookEvents_ticketUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @description An e-mail address as typed: surrounding white space is trimmed, and the address is lower-cased (its domain in
         *     punycode) before it keys an account or a rate-limit counter. Its local part has at most 64 characters
         *     (RFC 5321 §4.5.3.1.1) and its domain a dot, no empty label and no character a host name cannot hold.
         */
        AccountEmail: string;
        /**
         * @description An API key as listed: never its value.
         * @example {
         *       "id": "key_01JD3Z7G1B2C3D4E5F6G7H8J9K",
         *       "object": "api_key",
         *       "livemode": true,
         *       "name": "Zapier",
         *       "prefix": "sk_live_4eC39HqLyjWD",
         *       "scopes": [
         *         "leads:read",
         *         "leads:write"
         *       ],
         *       "created_at": "2026-11-01T08:00:00Z",
         *       "last_used_at": null,
         *       "expires_at": null,
         *       "revoked_at": null
         *     }
         */
        ApiKey: {
            id: components["schemas"]["ApiKeyId"];
            /** @enum {string} */
            object: "api_key";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            name: string;
            /** @description The first characters of the key, to recognise it. */
            prefix: string;
            scopes: components["schemas"]["Scope"][];
            /** Format: date-time */
            created_at: string;
            /** @description When the key was last used (updated at most once a minute). */
            last_used_at: string | null;
            /** @description After this time the key no longer works; set by rotation or at creation. */
            expires_at: string | null;
            revoked_at: string | null;
        };
        /** @description A new API key. */
        ApiKeyCreate: {
            name: string;
            scopes: components["schemas"]["Scope"][];
            /**
             * Format: date-time
             * @description When the key stops working; must be in the future (400 `VALIDATION_FAILED` otherwise). Unset: never.
             */
            expires_at?: string;
        };
        /**
         * @description Id of an API key (not its secret value).
         * @example key_01JD3Z7G1B2C3D4E5F6G7H8J9K
         */
        ApiKeyId: string;
        /** @description A page of API keys. */
        ApiKeyList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["ApiKey"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /** @description Rotation: a new key with the same name and scopes; the old one keeps working for the overlap. */
        ApiKeyRotate: {
            /**
             * Format: int32
             * @description How long the old key keeps working, in seconds (0 to 7 days).
             * @default 86400
             */
            overlap_seconds?: number;
        };
        /** @description A key with its value, returned only once, on creation or rotation. */
        ApiKeyWithSecret: {
            id: components["schemas"]["ApiKeyId"];
            /** @enum {string} */
            object: "api_key";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            name: string;
            /** @description The first characters of the key, to recognise it. */
            prefix: string;
            scopes: components["schemas"]["Scope"][];
            /** Format: date-time */
            created_at: string;
            /** @description When the key was last used (updated at most once a minute). */
            last_used_at: string | null;
            /** @description After this time the key no longer works; set by rotation or at creation. */
            expires_at: string | null;
            revoked_at: string | null;
            /**
             * @description The key: `sk_live_` (or `sk_test_` for test mode), 32 random base62 characters and a 6-character checksum, so
             *     that secret scanners recognise it. Stored only as a hash: it cannot be shown again.
             */
            key: string;
        };
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
        /** @description A new definition. Objects that already hold values under `key` must fit it, or it is refused (409). */
        AttributeDefinitionCreate: {
            object_type: components["schemas"]["AttributeObject"];
            key: string;
            label: string;
            description?: string;
            type: components["schemas"]["AttributeType"];
            /** @description Required for `enum` and `multi_enum` (distinct, at least one); refused for the other types. */
            options?: components["schemas"]["AttributeOption"][];
            /** @default false */
            required?: boolean;
            /** @default false */
            unique?: boolean;
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
        /** @description A page of attribute definitions. */
        AttributeDefinitionList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["AttributeDefinition"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /**
         * @description The fields to change. `options` may only grow: an option that values still use cannot be removed (409). Making it
         *     `required` or `unique` is refused (409) while existing values do not fit.
         */
        AttributeDefinitionUpdate: {
            label?: string;
            description?: string | null;
            options?: components["schemas"]["AttributeOption"][];
            required?: boolean;
            unique?: boolean;
        };
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
        /** @description A custom attribute's value that holds no object or array: the deepest level of one. */
        AttributeScalar: string | number | boolean | null;
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
        /** @description A custom attribute's value nesting at most 1 level of objects or arrays. */
        AttributeValue1: components["schemas"]["AttributeScalar"] | components["schemas"]["AttributeScalar"][] | {
            [key: string]: components["schemas"]["AttributeScalar"];
        };
        /** @description A custom attribute's value nesting at most 2 levels of objects or arrays. */
        AttributeValue2: components["schemas"]["AttributeScalar"] | components["schemas"]["AttributeValue1"][] | {
            [key: string]: components["schemas"]["AttributeValue1"];
        };
        /** @description A custom attribute's value nesting at most 3 levels of objects or arrays. */
        AttributeValue3: components["schemas"]["AttributeScalar"] | components["schemas"]["AttributeValue2"][] | {
            [key: string]: components["schemas"]["AttributeValue2"];
        };
        /** @description A custom attribute's value nesting at most 4 levels of objects or arrays. */
        AttributeValue4: components["schemas"]["AttributeScalar"] | components["schemas"]["AttributeValue3"][] | {
            [key: string]: components["schemas"]["AttributeValue3"];
        };
        /**
         * @description Who wrote a message.
         * @enum {string}
         */
        AuthorType: "lead" | "agent" | "system";
        /**
         * @description What became of one batch item.
         * @enum {string}
         */
        BatchItemResult: "created" | "updated" | "unchanged" | "failed";
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
        /** @description A new conversation, optionally with its first message. */
        ConversationCreate: {
            lead_id?: components["schemas"]["LeadId"];
            subject?: string;
            /** @default api */
            channel?: components["schemas"]["Channel"];
            assignee?: string;
            /** @default normal */
            priority?: components["schemas"]["Priority"];
            message?: components["schemas"]["MessageCreate"];
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
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
        /** @description A page of conversations. */
        ConversationList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Conversation"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /**
         * @description Lifecycle of a conversation: `open` ⇄ `snoozed` (until `snoozed_until`, then open again), and either to
         *     `closed`; a closed conversation reopens to `open`. Snoozing requires `snoozed_until` in the future.
         * @enum {string}
         */
        ConversationState: "open" | "snoozed" | "closed";
        /** @description The fields to change; null clears a field. */
        ConversationUpdate: {
            subject?: string | null;
            state?: components["schemas"]["ConversationState"];
            /**
             * @description Required when `state` becomes `snoozed`, and then in the future; refused (400 `VALIDATION_FAILED`) on a
             *     conversation that is not snoozed and is not becoming snoozed; leaving `snoozed` clears it.
             */
            snoozed_until?: string | null;
            assignee?: string | null;
            priority?: components["schemas"]["Priority"];
            /** @description Replaces all your own fields; at most 50 keys, each value any JSON nesting at most 5 levels. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
        };
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
        /** @description One event sent to one subscription, with every attempt. */
        Delivery: {
            id: components["schemas"]["DeliveryId"];
            /** @enum {string} */
            object: "delivery";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            webhook_id: components["schemas"]["WebhookId"];
            event_id: components["schemas"]["EventId"];
            event_type: components["schemas"]["EventType"];
            status: components["schemas"]["DeliveryStatus"];
            /** Format: int32 */
            attempt_count: number;
            next_attempt_at: string | null;
            /** @description The exact body every attempt sends (the event envelope, serialised once when the delivery was made). */
            payload: string;
            attempts: components["schemas"]["DeliveryAttempt"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description One HTTP attempt of a delivery. */
        DeliveryAttempt: {
            /** Format: int32 */
            attempt: number;
            /** Format: date-time */
            started_at: string;
            /**
             * Format: int32
             * @description How long the attempt took, in milliseconds.
             */
            duration_ms: number;
            /** @description The endpoint's status code; null when no response came (timeout, refused, TLS). */
            response_status: number | null;
            /** @description The first 4 KiB of the response body. */
            response_body: string | null;
            /** @description Why the attempt failed without a response. */
            error: string | null;
            /**
             * @description The request headers this attempt sent, as sent (the signatures included; the secret never is). Null for attempts
             *     made before they were kept.
             */
            request_headers: {
                [key: string]: string;
            } | null;
        };
        /** @description Deliveries of one subscription by state. */
        DeliveryCounts: {
            /** Format: int32 */
            succeeded: number;
            /** Format: int32 */
            failed: number;
            /** Format: int32 */
            pending: number;
        };
        /**
         * @description Id of one delivery of an event to one subscription.
         * @example dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K
         */
        DeliveryId: string;
        /** @description A page of deliveries, newest first. */
        DeliveryList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Delivery"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /**
         * @description The state of one delivery.
         * @enum {string}
         */
        DeliveryStatus: "pending" | "succeeded" | "failed";
        /**
         * Format: email
         * @description An e-mail address, its local part at most 64 characters (RFC 5321 §4.5.3.1.1).
         */
        EmailAddress: string;
        /**
         * @description The answer of `forgot` and `resend-verification`: the same whether or not an account exists. `throttled` is
         *     true when this address's e-mail budget is spent; `Retry-After` then says when to try again.
         */
        EmailRequestAccepted: {
            /** @enum {boolean} */
            accepted: true;
            throttled: boolean;
        };
        /** @description A single-use token from an e-mail link. */
        EmailToken: string;
        /**
         * @description The catalog of error codes. A code is stable: clients branch on `code`, never on `title` or `detail`.
         *     Each code always comes with the same HTTP status.
         * @enum {string}
         */
        ErrorCode: "VALIDATION_FAILED" | "MALFORMED_JSON" | "INVALID_CURSOR" | "DISPOSABLE_EMAIL" | "INVITE_REQUIRED" | "INVITE_INVALID" | "TOKEN_INVALID" | "PASSWORD_TOO_WEAK" | "UNAUTHENTICATED" | "INVALID_CREDENTIALS" | "INSUFFICIENT_SCOPE" | "TEST_MODE_ONLY" | "CSRF_TOKEN_INVALID" | "EMAIL_NOT_VERIFIED" | "ROUTE_NOT_FOUND" | "LEAD_NOT_FOUND" | "CONVERSATION_NOT_FOUND" | "MESSAGE_NOT_FOUND" | "TICKET_NOT_FOUND" | "EVENT_NOT_FOUND" | "WEBHOOK_NOT_FOUND" | "DELIVERY_NOT_FOUND" | "ATTRIBUTE_DEFINITION_NOT_FOUND" | "TEST_DATA_RESET_NOT_FOUND" | "API_KEY_NOT_FOUND" | "METHOD_NOT_ALLOWED" | "REQUEST_TIMEOUT" | "IDEMPOTENCY_KEY_IN_USE" | "INVALID_STATE_TRANSITION" | "EXTERNAL_ID_TAKEN" | "LEAD_MATCH_AMBIGUOUS" | "ATTRIBUTE_KEY_TAKEN" | "ATTRIBUTE_VALUES_CONFLICT" | "RESOURCE_LIMIT_REACHED" | "EVENTS_EXPIRED" | "EVENTS_RESET" | "PRECONDITION_FAILED" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "IDEMPOTENCY_KEY_REUSED" | "WEBHOOK_URL_NOT_ALLOWED" | "HEADERS_TOO_LARGE" | "RATE_LIMITED" | "INTERNAL_ERROR" | "NOT_IMPLEMENTED" | "SERVICE_UNAVAILABLE" | "WRITE_CONFLICT";
        /** @description Any event. */
        Event: components["schemas"]["LeadCapturedEvent"] | components["schemas"]["LeadUpdatedEvent"] | components["schemas"]["LeadDeletedEvent"] | components["schemas"]["ConversationCreatedEvent"] | components["schemas"]["ConversationUpdatedEvent"] | components["schemas"]["MessageCreatedEvent"] | components["schemas"]["TicketUpdatedEvent"] | components["schemas"]["AttributeDefinitionCreatedEvent"] | components["schemas"]["AttributeDefinitionUpdatedEvent"] | components["schemas"]["AttributeDefinitionArchivedEvent"];
        /**
         * @description Id of an event; also the `webhook-id` of its deliveries.
         * @example evt_01JD3Z7D1B2C3D4E5F6G7H8J9K
         */
        EventId: string;
        /** @description A page of events. */
        EventList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Event"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
            /**
             * @description When this feed last restarted at sequence 1 (`POST /v1/test-data/reset`, test mode only); null when it never did.
             *     A follower keeps it with its position: when it changes, the events it saw are gone and the feed begins again.
             */
            restarted_at: string | null;
        };
        /**
         * @description The kinds of event; a webhook subscription picks which it receives. Every create, update and delete of a lead,
         *     conversation, message or ticket is one event for each object it changed, and so is each change of an attribute
         *     definition (`GET /v1/event-types` lists each kind with the JSON Schema of its `data`).
         * @enum {string}
         */
        EventType: "lead.captured" | "lead.updated" | "lead.deleted" | "conversation.created" | "conversation.updated" | "message.created" | "ticket.updated" | "attribute_definition.created" | "attribute_definition.updated" | "attribute_definition.archived";
        /**
         * @description One kind of event, for a trigger picker and a receiver's validation (`GET /v1/event-types`).
         * @example {
         *       "object": "event_type",
         *       "type": "lead.captured",
         *       "description": "A lead was created.",
         *       "data_schema": {
         *         "type": "object",
         *         "required": [
         *           "object"
         *         ]
         *       }
         *     }
         */
        EventTypeInfo: {
            /** @enum {string} */
            object: "event_type";
            type: components["schemas"]["EventType"];
            /** @description What happened, in a sentence. */
            description: string;
            /** @description The JSON Schema (draft 2020-12) of the event's `data`, self-contained (`$defs`), from this contract. */
            data_schema: {
                [key: string]: unknown;
            };
        };
        /** @description Every kind of event, on one page. */
        EventTypeList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["EventTypeInfo"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /** @description One field that failed validation. */
        FieldError: {
            /** @description Where the problem is: `body.email`, `query.limit`, `path.lead_id`, `header.idempotency-key`. */
            path: string;
            /** @description What is wrong with it. */
            message: string;
        };
        /** @description `POST /api/auth/forgot`. */
        ForgotRequest: {
            email: components["schemas"]["AccountEmail"];
        };
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
        /** @description One item's outcome, in the order of the request's items. */
        LeadBatchItem: {
            result: components["schemas"]["BatchItemResult"];
            /** @description The object as it now is; absent when the item failed. */
            object?: components["schemas"]["Lead"];
            /** @description Why the item failed (RFC 9457); absent otherwise. */
            problem?: components["schemas"]["Problem"];
        };
        /** @description The outcome of every item of a batch, in the request's order. */
        LeadBatchResults: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["LeadBatchItem"][];
        };
        /**
         * @description Up to 100 leads, each created or, when one matches, updated. The call counts as one request of the budget and is
         *     atomic per item, not per batch: each item is written, or fails alone with a problem, whatever the others do.
         */
        LeadBatchUpsert: {
            match_on: components["schemas"]["LeadMatchOn"];
            /**
             * @description Each a `LeadBatchUpsertItem`, checked on its own: an item that is not one fails alone (`result: failed`, a
             *     `VALIDATION_FAILED` problem naming its field as `body.items.N.field`). A matched lead gets the item's fields as
             *     an update; fields the item leaves out keep their values.
             */
            items: (components["schemas"]["LeadBatchUpsertItem"] | {
                [key: string]: unknown;
            })[];
        };
        /**
         * @description One item of a lead batch: the fields of a `LeadCreate`, and the version of the lead it expects to change. It
         *     carries the field it is matched on (`match_on`), which names the lead.
         */
        LeadBatchUpsertItem: {
            email?: components["schemas"]["EmailAddress"];
            phone?: string;
            name?: string;
            company?: string;
            status?: components["schemas"]["LeadStatus"];
            source?: string;
            tags?: components["schemas"]["Tag"][];
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
            external_id?: string;
            /**
             * Format: int32
             * @description Optimistic concurrency, as `If-Match` for a single write: the item applies only to a matched lead at this
             *     `version`. When the lead is at another version, or none matches, the item fails alone with 412
             *     `PRECONDITION_FAILED` and changes nothing.
             */
            expected_version?: number;
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
        /** @description The fields of a new lead; give at least one of `email`, `phone`, `name` or `external_id`. */
        LeadCreate: {
            email?: components["schemas"]["EmailAddress"];
            phone?: string;
            name?: string;
            company?: string;
            /** @default new */
            status?: components["schemas"]["LeadStatus"];
            source?: string;
            tags?: components["schemas"]["Tag"][];
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
            external_id?: string;
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
        /** @description A page of leads. */
        LeadList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Lead"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /**
         * @description What a batch item is matched on to find the lead it updates.
         * @enum {string}
         */
        LeadMatchOn: "external_id" | "email";
        /**
         * @description Where a lead is in the sales funnel. Any status may move to any other.
         * @enum {string}
         */
        LeadStatus: "new" | "contacted" | "qualified" | "disqualified" | "converted";
        /** @description The fields to change; null clears a field. Unknown fields are refused. */
        LeadUpdate: {
            email?: components["schemas"]["EmailAddress"] | null;
            phone?: string | null;
            name?: string | null;
            company?: string | null;
            status?: components["schemas"]["LeadStatus"];
            source?: string | null;
            tags?: components["schemas"]["Tag"][];
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
            external_id?: string | null;
        };
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
        /** @description `POST /api/auth/login`. */
        LoginRequest: {
            email: components["schemas"]["AccountEmail"];
            password: string;
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
        /** @description A new message. */
        MessageCreate: {
            author: components["schemas"]["MessageAuthor"];
            body: string;
            /** @default public */
            visibility?: components["schemas"]["MessageVisibility"];
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
        /** @description A page of messages, newest first. */
        MessageList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Message"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /**
         * @description Whether the lead can see a message.
         * @enum {string}
         */
        MessageVisibility: "public" | "internal";
        /**
         * @description A password: 10 to 256 characters (NIST SP 800-63B: length, not composition rules). Refused beyond that, with 400
         *     `PASSWORD_TOO_WEAK`: the account's e-mail address or its local part, and fewer than 4 different characters.
         */
        Password: string;
        /**
         * @description Urgency, shared by conversations and tickets.
         * @enum {string}
         */
        Priority: "low" | "normal" | "high" | "urgent";
        /**
         * @description An RFC 9457 problem details object.
         * @example {
         *       "type": "/problems/lead-not-found",
         *       "title": "Lead not found",
         *       "status": 404,
         *       "detail": "No lead lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7 in this workspace.",
         *       "code": "LEAD_NOT_FOUND",
         *       "request_id": "req_01JD3Z8K1B2C3D4E5F6G7H8J9K"
         *     }
         */
        Problem: {
            /** @description A relative URI naming the problem type: `/problems/` and the code in kebab case. */
            type: string;
            /** @description A short, human-readable summary of the problem type. */
            title: string;
            /**
             * Format: int32
             * @description The HTTP status code.
             */
            status: number;
            /** @description A human-readable explanation of this occurrence. */
            detail?: string;
            /** @description The stable, machine-readable code. */
            code: components["schemas"]["ErrorCode"];
            /** @description The id of this request, also in the `Request-Id` header. */
            request_id: string;
            /** @description Field-level problems, for `VALIDATION_FAILED`. */
            errors?: components["schemas"]["FieldError"][];
            /**
             * Format: int64
             * @description For `EVENTS_EXPIRED`: the sequence of the oldest event still kept in this workspace.
             */
            oldest_sequence?: number;
            /**
             * Format: int64
             * @description For `ATTRIBUTE_VALUES_CONFLICT`: how many objects hold values that do not fit.
             */
            conflicting_count?: number;
            /** @description For `ATTRIBUTE_VALUES_CONFLICT`: up to 10 of those objects' ids. */
            conflicting_ids?: string[];
        };
        /**
         * @description The answer of `register`: the same whether or not the address already has an account, so that it reveals
         *     nothing. If the address can register, a verification e-mail follows.
         */
        RegisterAccepted: {
            /** @enum {boolean} */
            accepted: true;
        };
        /** @description `POST /api/auth/register`. */
        RegisterRequest: {
            email: components["schemas"]["AccountEmail"];
            password: components["schemas"]["Password"];
            name?: string;
            /** @description Required while registration is by invitation (the closed beta). */
            invite_code?: string;
        };
        /**
         * @description How accounts are opened on this service (`REGISTRATION_MODE`).
         * @enum {string}
         */
        RegistrationMode: "open" | "invite";
        /** @description What a sign-up form needs to know before it is shown. */
        RegistrationSettings: {
            /** @enum {string} */
            object: "registration_settings";
            /** @description `invite`: `register` requires `invite_code`, so the form asks for one. */
            mode: components["schemas"]["RegistrationMode"];
        };
        /** @description `POST /api/auth/resend-verification`. */
        ResendVerificationRequest: {
            email: components["schemas"]["AccountEmail"];
        };
        /** @description `POST /api/auth/reset`. */
        ResetRequest: {
            token: components["schemas"]["EmailToken"];
            password: components["schemas"]["Password"];
        };
        /** @description The answer of `reset`. */
        ResetResult: {
            /** @enum {boolean} */
            reset: true;
        };
        /** @description The receiver's response time over the attempts that got an answer, in milliseconds; null without any. */
        ResponseTimes: {
            p50: number | null;
            p99: number | null;
        };
        /**
         * @description What an API key may do. Grant the fewest a client needs.
         * @enum {string}
         */
        Scope: "leads:read" | "leads:write" | "conversations:read" | "conversations:write" | "tickets:read" | "tickets:write" | "webhooks:read" | "webhooks:write" | "events:read" | "attributes:read" | "attributes:write" | "test_data:write";
        /** @description The signed-in session. */
        Session: {
            /** @enum {string} */
            object: "session";
            user: components["schemas"]["User"];
            workspace: components["schemas"]["Workspace"];
            /** @description Send as `X-CSRF-Token` on every session-authenticated write. */
            csrf_token: string;
            /** Format: date-time */
            expires_at: string;
        };
        /** @description A free-form label. */
        Tag: string;
        /**
         * @description A reset of the workspace's test data (`POST /v1/test-data/reset`): every test lead, conversation, message, ticket,
         *     event, delivery and idempotency key is deleted, and the test feed restarts at `sequence` 1. Live data, API keys and
         *     webhook subscriptions are kept.
         * @example {
         *       "id": "tdr_01JD3Z7M1B2C3D4E5F6G7H8J9K",
         *       "object": "test_data_reset",
         *       "livemode": false,
         *       "status": "succeeded",
         *       "deleted": {
         *         "leads": 10000,
         *         "conversations": 0,
         *         "messages": 0,
         *         "tickets": 0,
         *         "events": 10000,
         *         "deliveries": 0
         *       },
         *       "created_at": "2026-11-01T09:00:00Z",
         *       "completed_at": "2026-11-01T09:00:01Z"
         *     }
         */
        TestDataReset: {
            id: components["schemas"]["TestDataResetId"];
            /** @enum {string} */
            object: "test_data_reset";
            /**
             * @description Always `false`: only test data is reset.
             * @enum {boolean}
             */
            livemode: false;
            status: components["schemas"]["TestDataResetStatus"];
            /** @description What it deleted; null until it succeeded. */
            deleted: components["schemas"]["TestDataResetCounts"] | null;
            /** Format: date-time */
            created_at: string;
            /** @description When it succeeded or failed; null before. */
            completed_at: string | null;
        };
        /** @description What a reset deleted, by kind. */
        TestDataResetCounts: {
            /** Format: int64 */
            leads: number;
            /** Format: int64 */
            conversations: number;
            /** Format: int64 */
            messages: number;
            /** Format: int64 */
            tickets: number;
            /** Format: int64 */
            events: number;
            /** Format: int64 */
            deliveries: number;
        };
        /**
         * @description Id of a reset of a workspace's test data.
         * @example tdr_01JD3Z7M1B2C3D4E5F6G7H8J9K
         */
        TestDataResetId: string;
        /**
         * @description Where a reset of the test data is.
         * @enum {string}
         */
        TestDataResetStatus: "pending" | "running" | "succeeded" | "failed";
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
        /** @description One item's outcome, in the order of the request's items. */
        TicketBatchItem: {
            result: components["schemas"]["BatchItemResult"];
            /** @description The object as it now is; absent when the item failed. */
            object?: components["schemas"]["Ticket"];
            /** @description Why the item failed (RFC 9457); absent otherwise. */
            problem?: components["schemas"]["Problem"];
        };
        /** @description The outcome of every item of a batch, in the request's order. */
        TicketBatchResults: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["TicketBatchItem"][];
        };
        /**
         * @description Up to 100 tickets, each created or, when one matches, updated. The call counts as one request of the budget and is
         *     atomic per item, not per batch: each item is written, or fails alone with a problem, whatever the others do.
         */
        TicketBatchUpsert: {
            match_on: components["schemas"]["TicketMatchOn"];
            /**
             * @description Each a `TicketBatchUpsertItem` with its `external_id`, checked on its own: an item that is not one fails alone
             *     (`result: failed`, a `VALIDATION_FAILED` problem naming its field as `body.items.N.field`). A matched ticket gets
             *     the item's fields as an update (its `status` must then follow the legal moves); fields the item leaves out keep
             *     their values.
             */
            items: (components["schemas"]["TicketBatchUpsertItem"] | {
                [key: string]: unknown;
            })[];
        };
        /** @description One item of a ticket batch: the fields of a `TicketCreate`, and the version of the ticket it expects to change. */
        TicketBatchUpsertItem: {
            subject: string;
            description?: string;
            status?: components["schemas"]["TicketStatus"];
            priority?: components["schemas"]["Priority"];
            lead_id?: components["schemas"]["LeadId"];
            conversation_id?: components["schemas"]["ConversationId"];
            assignee?: string;
            tags?: components["schemas"]["Tag"][];
            /** Format: date-time */
            due_at?: string;
            external_id?: string;
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
            /**
             * Format: int32
             * @description Optimistic concurrency, as `If-Match` for a single write: the item applies only to a matched ticket at this
             *     `version`. When the ticket is at another version, or none matches, the item fails alone with 412
             *     `PRECONDITION_FAILED` and changes nothing.
             */
            expected_version?: number;
        };
        /** @description A new ticket. */
        TicketCreate: {
            subject: string;
            description?: string;
            /** @default new */
            status?: components["schemas"]["TicketStatus"];
            /** @default normal */
            priority?: components["schemas"]["Priority"];
            lead_id?: components["schemas"]["LeadId"];
            conversation_id?: components["schemas"]["ConversationId"];
            assignee?: string;
            tags?: components["schemas"]["Tag"][];
            /** Format: date-time */
            due_at?: string;
            external_id?: string;
            /** @description Your own fields: at most 50 keys; each value is any JSON nesting at most 5 levels of objects or arrays. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
        };
        /**
         * @description Id of a ticket (the workspace-wide `number` is separate).
         * @example tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K
         */
        TicketId: string;
        /** @description A page of tickets. */
        TicketList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Ticket"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /**
         * @description What a batch item is matched on to find the ticket it updates.
         * @enum {string}
         */
        TicketMatchOn: "external_id";
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
        /** @description The fields to change; null clears a field. `status` must follow the legal moves of `TicketStatus`. */
        TicketUpdate: {
            subject?: string;
            description?: string | null;
            status?: components["schemas"]["TicketStatus"];
            priority?: components["schemas"]["Priority"];
            lead_id?: components["schemas"]["LeadId"] | null;
            conversation_id?: components["schemas"]["ConversationId"] | null;
            assignee?: string | null;
            tags?: components["schemas"]["Tag"][];
            due_at?: string | null;
            external_id?: string | null;
            /** @description Replaces all your own fields; at most 50 keys, each value any JSON nesting at most 5 levels. */
            custom_attributes?: {
                [key: string]: components["schemas"]["AttributeValue"];
            };
        };
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
        /** @description A user account. */
        User: {
            id: components["schemas"]["UserId"];
            /** @enum {string} */
            object: "user";
            email: string;
            name: string | null;
            email_verified: boolean;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @description Id of a user account.
         * @example usr_01JD3Z7J1B2C3D4E5F6G7H8J9K
         */
        UserId: string;
        /** @description `POST /api/auth/verify`. */
        VerifyRequest: {
            token: components["schemas"]["EmailToken"];
        };
        /** @description The answer of `verify`. */
        VerifyResult: {
            /** @enum {boolean} */
            verified: true;
        };
        /**
         * @description A webhook subscription. The secret is only shown on creation and on rotation.
         * @example {
         *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
         *       "object": "webhook",
         *       "livemode": true,
         *       "url": "https://hooks.example.com/service",
         *       "events": [
         *         "lead.captured",
         *         "ticket.updated"
         *       ],
         *       "description": "CRM sync",
         *       "enabled": true,
         *       "disabled_reason": null,
         *       "disabled_at": null,
         *       "max_deliveries_per_second": null,
         *       "max_concurrent_deliveries": null,
         *       "secret_rotated_at": null,
         *       "created_at": "2026-11-01T08:00:00Z",
         *       "updated_at": "2026-11-01T08:00:00Z"
         *     }
         */
        Webhook: {
            id: components["schemas"]["WebhookId"];
            /** @enum {string} */
            object: "webhook";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            url: components["schemas"]["WebhookUrl"];
            events: components["schemas"]["EventType"][];
            description: string | null;
            enabled: boolean;
            disabled_reason: components["schemas"]["WebhookDisabledReason"] | null;
            /** @description Since when the subscription is disabled; null while it is enabled. */
            disabled_at: string | null;
            /** @description The most attempts that start in any one second. */
            max_deliveries_per_second: number | null;
            /** @description The most attempts in flight at once. */
            max_concurrent_deliveries: number | null;
            /** @description When the secret was last rotated; the previous secret keeps signing for 24 hours after it. */
            secret_rotated_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A new subscription. */
        WebhookCreate: {
            /** @description The receiver's HTTPS URL; a Power Automate trigger sets it to its own callback. */
            url: components["schemas"]["WebhookUrl"];
            events: components["schemas"]["EventType"][];
            description?: string;
            /** @default true */
            enabled?: boolean;
            /** @description The most attempts that start in any one second; omitted or null: no limit of its own. */
            max_deliveries_per_second?: number | null;
            /** @description The most attempts in flight at once; omitted or null: the service's default (10). */
            max_concurrent_deliveries?: number | null;
        };
        /**
         * @description Why a subscription was disabled.
         * @enum {string}
         */
        WebhookDisabledReason: "manual" | "endpoint_gone" | "failing";
        /**
         * @description Id of a webhook subscription.
         * @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K
         */
        WebhookId: string;
        /** @description A page of webhook subscriptions. */
        WebhookList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["Webhook"][];
            /** @description Whether another page follows. */
            has_more: boolean;
            /** @description Pass as `cursor` to get the next page; null on the last page. */
            next_cursor: string | null;
        };
        /** @description Send again what a subscription missed in a window of time. */
        WebhookRecoverRequest: {
            /**
             * Format: date-time
             * @description The window's start: deliveries made (and, with `include_missed`, events that happened) at or after it.
             */
            since: string;
            /**
             * Format: date-time
             * @description The window's end, exclusive; omitted: now.
             */
            until?: string;
            /**
             * @description Also deliver the events of the subscription's types that happened in the window and were never delivered to it
             *     (it was disabled then), enqueued in `sequence` order after the failed deliveries. Attempts run side by side and
             *     may arrive out of that order: order by `sequence`.
             * @default false
             */
            include_missed?: boolean;
            /**
             * @description Only count what would be sent (200), without sending anything.
             * @default false
             */
            dry_run?: boolean;
        };
        /** @description What a recovery sends: every delivery that ended failed in the window, oldest first, then the missed events. */
        WebhookRecovery: {
            /** @enum {string} */
            object: "webhook_recovery";
            webhook_id: components["schemas"]["WebhookId"];
            /** Format: date-time */
            since: string;
            /** Format: date-time */
            until: string;
            include_missed: boolean;
            dry_run: boolean;
            /**
             * Format: int32
             * @description Failed deliveries sent once more, each with its original `webhook-id` and body.
             */
            failed_deliveries: number;
            /**
             * Format: int32
             * @description Events the subscription never received, delivered now (0 without `include_missed`).
             */
            missed_events: number;
        };
        /** @description The health of one subscription over a window. */
        WebhookStats: {
            /** @enum {string} */
            object: "webhook_stats";
            webhook_id: components["schemas"]["WebhookId"];
            /**
             * Format: date-time
             * @description The window: deliveries made from `since` to `until`.
             */
            since: string;
            /** Format: date-time */
            until: string;
            deliveries: components["schemas"]["DeliveryCounts"];
            /**
             * Format: int32
             * @description HTTP attempts made for these deliveries.
             */
            attempts: number;
            /** @description Succeeded deliveries over settled ones (succeeded and failed), from 0 to 1; null when none has settled. */
            success_rate: number | null;
            response_time_ms: components["schemas"]["ResponseTimes"];
        };
        /** @description Send a sample event of this type to the subscription. */
        WebhookTestRequest: {
            /** @default lead.captured */
            event_type?: components["schemas"]["EventType"];
        };
        /** @description The fields to change. Setting `enabled` to true re-enables a disabled subscription. */
        WebhookUpdate: {
            url?: components["schemas"]["WebhookUrl"];
            events?: components["schemas"]["EventType"][];
            description?: string | null;
            enabled?: boolean;
            /** @description The most attempts that start in any one second; null removes the limit. */
            max_deliveries_per_second?: number | null;
            /** @description The most attempts in flight at once; null returns to the service's default (10). */
            max_concurrent_deliveries?: number | null;
        };
        /**
         * Format: uri
         * @description An https URL without credentials, on a port other than 0 (no host listens there), that does not resolve to a
         *     private, loopback or metadata address.
         */
        WebhookUrl: string;
        /** @description A subscription with its signing secret, returned once on creation and on rotation. */
        WebhookWithSecret: {
            id: components["schemas"]["WebhookId"];
            /** @enum {string} */
            object: "webhook";
            /** @description `true` for live mode; `false` for test mode, whose objects a `sk_test_` key makes. */
            livemode: boolean;
            url: components["schemas"]["WebhookUrl"];
            events: components["schemas"]["EventType"][];
            description: string | null;
            enabled: boolean;
            disabled_reason: components["schemas"]["WebhookDisabledReason"] | null;
            /** @description Since when the subscription is disabled; null while it is enabled. */
            disabled_at: string | null;
            /** @description The most attempts that start in any one second. */
            max_deliveries_per_second: number | null;
            /** @description The most attempts in flight at once. */
            max_concurrent_deliveries: number | null;
            /** @description When the secret was last rotated; the previous secret keeps signing for 24 hours after it. */
            secret_rotated_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description `whsec_` and the base64 of 32 random bytes. Keep it secret; verify every delivery with it. */
            secret: string;
        };
        /** @description A workspace: where leads, conversations, tickets, keys and webhooks live. */
        Workspace: {
            id: components["schemas"]["WorkspaceId"];
            /** @enum {string} */
            object: "workspace";
            name: string;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @description Id of a workspace.
         * @example ws_01JD3Z7H1B2C3D4E5F6G7H8J9K
         */
        WorkspaceId: string;
    };
    responses: never;
    parameters: {
        CsrfTokenHeader: string;
        IdempotencyKeyHeader: string;
        IfMatchHeader: string;
        IfNoneMatchHeader: string;
        /** @description The `next_cursor` of the previous page; opaque. */
        "ListQuery.cursor": string;
        /** @description How many objects to return, 1 to 100. */
        "ListQuery.limit": number;
        ModeHeader: "live" | "test";
        /** @description The delivery id. */
        "WebhookDeliveryHeaders.serviceDelivery": components["schemas"]["DeliveryId"];
        /** @description The event type. */
        "WebhookDeliveryHeaders.serviceEvent": components["schemas"]["EventType"];
        /**
         * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
         *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
         */
        "WebhookDeliveryHeaders.serviceSignature": string;
        /**
         * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
         *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
         */
        "WebhookDeliveryHeaders.traceparent": string;
        "WebhookDeliveryHeaders.tracestate": string;
        /** @description The event id, the same on every retry: deduplicate by it. */
        "WebhookDeliveryHeaders.webhookId": components["schemas"]["EventId"];
        /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
        "WebhookDeliveryHeaders.webhookSignature": string;
        /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
        "WebhookDeliveryHeaders.webhookTimestamp": string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    Auth_forgot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": components["schemas"]["ForgotRequest"];
            };
        };
        responses: {
            /** @description Accepted. When `throttled` is true, `Retry-After` says when this address's budget allows another e-mail. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accepted": true,
                     *       "throttled": false
                     *     }
                     */
                    "application/json": components["schemas"]["EmailRequestAccepted"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["LoginRequest"];
            };
        };
        responses: {
            /** @description The session; on login, `Set-Cookie` carries the session cookie. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "session",
                     *       "user": {
                     *         "id": "usr_01JD3Z7J1B2C3D4E5F6G7H8J9K",
                     *         "object": "user",
                     *         "email": "ada@example.com",
                     *         "name": "Ada Lovelace",
                     *         "email_verified": true,
                     *         "created_at": "2026-11-01T08:00:00Z"
                     *       },
                     *       "workspace": {
                     *         "id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
                     *         "object": "workspace",
                     *         "name": "Ada's workspace",
                     *         "created_at": "2026-11-01T08:00:00Z"
                     *       },
                     *       "csrf_token": "c2b3f9e1a0d84c6e9f1b2a3c4d5e6f70",
                     *       "expires_at": "2026-12-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_logout: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out: `Set-Cookie` expires the session cookie. */
            204: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Set-Cookie": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_register: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct horse battery staple",
                 *       "name": "Ada Lovelace"
                 *     }
                 */
                "application/json": components["schemas"]["RegisterRequest"];
            };
        };
        responses: {
            /** @description Registration accepted: if the address can register, a verification e-mail follows. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accepted": true
                     *     }
                     */
                    "application/json": components["schemas"]["RegisterAccepted"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a password of fewer than 4 different characters; the e-mail address, or its local part, as the password; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_registration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "registration_settings",
                     *       "mode": "open"
                     *     }
                     */
                    "application/json": components["schemas"]["RegistrationSettings"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_resendVerification: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": components["schemas"]["ResendVerificationRequest"];
            };
        };
        responses: {
            /** @description Accepted. When `throttled` is true, `Retry-After` says when this address's budget allows another e-mail. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "accepted": true,
                     *       "throttled": true
                     *     }
                     */
                    "application/json": components["schemas"]["EmailRequestAccepted"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_reset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "rt_3q2l9kJx0cTn7wQeR5uY8iO1pA4sD6fG",
                 *       "password": "a new long passphrase"
                 *     }
                 */
                "application/json": components["schemas"]["ResetRequest"];
            };
        };
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "reset": true
                     *     }
                     */
                    "application/json": components["schemas"]["ResetResult"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a token that is unknown, used or expired; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_session: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session; on login, `Set-Cookie` carries the session cookie. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "session",
                     *       "user": {
                     *         "id": "usr_01JD3Z7J1B2C3D4E5F6G7H8J9K",
                     *         "object": "user",
                     *         "email": "ada@example.com",
                     *         "name": "Ada Lovelace",
                     *         "email_verified": true,
                     *         "created_at": "2026-11-01T08:00:00Z"
                     *       },
                     *       "workspace": {
                     *         "id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
                     *         "object": "workspace",
                     *         "name": "Ada's workspace",
                     *         "created_at": "2026-11-01T08:00:00Z"
                     *       },
                     *       "csrf_token": "c2b3f9e1a0d84c6e9f1b2a3c4d5e6f70",
                     *       "expires_at": "2026-12-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Auth_verify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "vt_3q2l9kJx0cTn7wQeR5uY8iO1pA4sD6fG"
                 *     }
                 */
                "application/json": components["schemas"]["VerifyRequest"];
            };
        };
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "verified": true
                     *     }
                     */
                    "application/json": components["schemas"]["VerifyResult"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a token that is unknown, used or expired; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceSettings_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
                     *       "object": "workspace",
                     *       "name": "Ada's workspace",
                     *       "created_at": "2026-11-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiKeys_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
            };
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "key_01JD3Z7G1B2C3D4E5F6G7H8J9K",
                     *           "object": "api_key",
                     *           "livemode": true,
                     *           "name": "Zapier",
                     *           "prefix": "sk_live_4eC39HqLyjWD",
                     *           "scopes": [
                     *             "leads:read",
                     *             "leads:write"
                     *           ],
                     *           "created_at": "2026-11-01T08:00:00Z",
                     *           "last_used_at": null,
                     *           "expires_at": null,
                     *           "revoked_at": null
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiKeys_create: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Zapier",
                 *       "scopes": [
                 *         "leads:read",
                 *         "leads:write"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ApiKeyCreate"];
            };
        };
        responses: {
            /** @description Created. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "key_01JD3Z7G1B2C3D4E5F6G7H8J9K",
                     *       "object": "api_key",
                     *       "livemode": true,
                     *       "name": "Zapier",
                     *       "prefix": "sk_live_4eC39HqLyjWD",
                     *       "scopes": [
                     *         "leads:read",
                     *         "leads:write"
                     *       ],
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "last_used_at": null,
                     *       "expires_at": null,
                     *       "revoked_at": null,
                     *       "key": "sk_live_4eC39HqLyjWDarjtT1zdp7dcW3x9Kq2P0aBv1c"
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `expires_at` not in the future; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiKeys_get: {
        parameters: {
            query?: never;
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example key_01JD3Z7G1B2C3D4E5F6G7H8J9K */
                key_id: components["schemas"]["ApiKeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "key_01JD3Z7G1B2C3D4E5F6G7H8J9K",
                     *       "object": "api_key",
                     *       "livemode": true,
                     *       "name": "Zapier",
                     *       "prefix": "sk_live_4eC39HqLyjWD",
                     *       "scopes": [
                     *         "leads:read",
                     *         "leads:write"
                     *       ],
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "last_used_at": null,
                     *       "expires_at": null,
                     *       "revoked_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiKeys_revoke: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example key_01JD3Z7G1B2C3D4E5F6G7H8JZZ */
                key_id: components["schemas"]["ApiKeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; nothing to return. */
            204: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiKeys_rotate: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example key_01JD3Z7G1B2C3D4E5F6G7H8J9K */
                key_id: components["schemas"]["ApiKeyId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "overlap_seconds": 86400
                 *     }
                 */
                "application/json": components["schemas"]["ApiKeyRotate"];
            };
        };
        responses: {
            /** @description Created. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "key_01JD3Z7G1B2C3D4E5F6G7H8J9K",
                     *       "object": "api_key",
                     *       "livemode": true,
                     *       "name": "Zapier",
                     *       "prefix": "sk_live_4eC39HqLyjWD",
                     *       "scopes": [
                     *         "leads:read",
                     *         "leads:write"
                     *       ],
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "last_used_at": null,
                     *       "expires_at": null,
                     *       "revoked_at": null,
                     *       "key": "sk_live_4eC39HqLyjWDarjtT1zdp7dcW3x9Kq2P0aBv1c"
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceAttributeDefinitions_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Archived definitions too. */
                include_archived?: boolean;
            };
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
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
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["AttributeDefinitionList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceAttributeDefinitions_create: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "object_type": "lead",
                 *       "key": "plan",
                 *       "label": "Plan",
                 *       "type": "enum",
                 *       "options": [
                 *         "free",
                 *         "pro",
                 *         "enterprise"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["AttributeDefinitionCreate"];
            };
        };
        responses: {
            /** @description Created. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["AttributeDefinition"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `options` on a type without them; no `options` for an `enum` or `multi_enum`; `unique` on a `boolean` or `multi_enum`; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceAttributeDefinitions_archive: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example attr_01JD3Z7N1B2C3D4E5F6G7H8J9K */
                attribute_definition_id: components["schemas"]["AttributeDefinitionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["AttributeDefinition"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceEvents_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only events of this kind. */
                type?: components["schemas"]["EventType"];
            };
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *           "object": "event",
                     *           "livemode": true,
                     *           "type": "lead.captured",
                     *           "sequence": 1,
                     *           "timestamp": "2026-11-01T09:30:00Z",
                     *           "api_version": "1.0",
                     *           "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
                     *           "data": {
                     *             "object": {
                     *               "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
                     *               "object": "lead",
                     *               "livemode": true,
                     *               "email": "ada@example.com",
                     *               "phone": "+44 20 7946 0958",
                     *               "name": "Ada Lovelace",
                     *               "company": "Analytical Engines Ltd",
                     *               "status": "new",
                     *               "source": "website",
                     *               "tags": [
                     *                 "trial",
                     *                 "enterprise"
                     *               ],
                     *               "custom_attributes": {
                     *                 "plan": "pro"
                     *               },
                     *               "external_id": "crm-4821",
                     *               "created_at": "2026-11-01T09:30:00Z",
                     *               "updated_at": "2026-11-01T09:30:00Z",
                     *               "version": 1
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null,
                     *       "restarted_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["EventList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
            };
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *           "object": "webhook",
                     *           "livemode": true,
                     *           "url": "https://hooks.example.com/service",
                     *           "events": [
                     *             "lead.captured",
                     *             "ticket.updated"
                     *           ],
                     *           "description": "CRM sync",
                     *           "enabled": true,
                     *           "disabled_reason": null,
                     *           "disabled_at": null,
                     *           "max_deliveries_per_second": null,
                     *           "max_concurrent_deliveries": null,
                     *           "secret_rotated_at": null,
                     *           "created_at": "2026-11-01T08:00:00Z",
                     *           "updated_at": "2026-11-01T08:00:00Z"
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_create: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/service",
                 *       "events": [
                 *         "lead.captured",
                 *         "ticket.updated"
                 *       ],
                 *       "description": "CRM sync"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookCreate"];
            };
        };
        responses: {
            /** @description Created. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z",
                     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Rgew9s6Yzo="
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_get: {
        parameters: {
            query?: never;
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_delete: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8JZZ */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; nothing to return. */
            204: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_update: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": false
                 *     }
                 */
                "application/json": components["schemas"]["WebhookUpdate"];
            };
        };
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_listDeliveries: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only deliveries in this state. */
                status?: components["schemas"]["DeliveryStatus"];
            };
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *           "object": "delivery",
                     *           "livemode": true,
                     *           "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *           "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *           "event_type": "lead.captured",
                     *           "status": "succeeded",
                     *           "attempt_count": 1,
                     *           "next_attempt_at": null,
                     *           "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *           "attempts": [
                     *             {
                     *               "attempt": 1,
                     *               "started_at": "2026-11-01T09:30:00Z",
                     *               "duration_ms": 84,
                     *               "response_status": 200,
                     *               "response_body": "ok",
                     *               "error": null,
                     *               "request_headers": {
                     *                 "content-type": "application/json",
                     *                 "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *                 "webhook-timestamp": "1793525400",
                     *                 "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *                 "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *                 "X-Service-Event": "lead.captured",
                     *                 "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *                 "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *               }
                     *             }
                     *           ],
                     *           "created_at": "2026-11-01T09:30:00Z",
                     *           "updated_at": "2026-11-01T09:30:00Z"
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_getDelivery: {
        parameters: {
            query?: never;
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
                /** @example dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K */
                delivery_id: components["schemas"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *       "object": "delivery",
                     *       "livemode": true,
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *       "event_type": "lead.captured",
                     *       "status": "succeeded",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *       "attempts": [
                     *         {
                     *           "attempt": 1,
                     *           "started_at": "2026-11-01T09:30:00Z",
                     *           "duration_ms": 84,
                     *           "response_status": 200,
                     *           "response_body": "ok",
                     *           "error": null,
                     *           "request_headers": {
                     *             "content-type": "application/json",
                     *             "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *             "webhook-timestamp": "1793525400",
                     *             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Event": "lead.captured",
                     *             "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *             "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *           }
                     *         }
                     *       ],
                     *       "created_at": "2026-11-01T09:30:00Z",
                     *       "updated_at": "2026-11-01T09:30:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_redeliver: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
                /** @example dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K */
                delivery_id: components["schemas"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: the work continues in the background. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *       "object": "delivery",
                     *       "livemode": true,
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *       "event_type": "lead.captured",
                     *       "status": "succeeded",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *       "attempts": [
                     *         {
                     *           "attempt": 1,
                     *           "started_at": "2026-11-01T09:30:00Z",
                     *           "duration_ms": 84,
                     *           "response_status": 200,
                     *           "response_body": "ok",
                     *           "error": null,
                     *           "request_headers": {
                     *             "content-type": "application/json",
                     *             "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *             "webhook-timestamp": "1793525400",
                     *             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Event": "lead.captured",
                     *             "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *             "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *           }
                     *         }
                     *       ],
                     *       "created_at": "2026-11-01T09:30:00Z",
                     *       "updated_at": "2026-11-01T09:30:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_recover: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-01T00:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookRecoverRequest"];
            };
        };
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRecovery"];
                };
            };
            /** @description Accepted: the work continues in the background. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "webhook_recovery",
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "since": "2026-11-01T00:00:00Z",
                     *       "until": "2026-11-01T06:00:00Z",
                     *       "include_missed": false,
                     *       "dry_run": false,
                     *       "failed_deliveries": 5000,
                     *       "missed_events": 0
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookRecovery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `since` in the future, without `until` (the window ends now); `until` not after `since`; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_rotateSecret: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z",
                     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Rgew9s6Yzo="
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_stats: {
        parameters: {
            query?: {
                /** @description The window's start; omitted: 24 hours ago. */
                since?: string;
            };
            header?: {
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "webhook_stats",
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "since": "2026-10-31T09:30:00Z",
                     *       "until": "2026-11-01T09:30:00Z",
                     *       "deliveries": {
                     *         "succeeded": 4980,
                     *         "failed": 12,
                     *         "pending": 8
                     *       },
                     *       "attempts": 5031,
                     *       "success_rate": 0.9976,
                     *       "response_time_ms": {
                     *         "p50": 84,
                     *         "p99": 912
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookStats"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `since` in the future; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkspaceWebhooks_sendTest: {
        parameters: {
            query?: never;
            header?: {
                "X-CSRF-Token"?: components["parameters"]["CsrfTokenHeader"];
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "Service-Mode"?: components["parameters"]["ModeHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event_type": "lead.captured"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookTestRequest"];
            };
        };
        responses: {
            /** @description Accepted: the work continues in the background. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *       "object": "delivery",
                     *       "livemode": true,
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *       "event_type": "lead.captured",
                     *       "status": "succeeded",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *       "attempts": [
                     *         {
                     *           "attempt": 1,
                     *           "started_at": "2026-11-01T09:30:00Z",
                     *           "duration_ms": 84,
                     *           "response_status": 200,
                     *           "response_body": "ok",
                     *           "error": null,
                     *           "request_headers": {
                     *             "content-type": "application/json",
                     *             "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *             "webhook-timestamp": "1793525400",
                     *             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Event": "lead.captured",
                     *             "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *             "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *           }
                     *         }
                     *       ],
                     *       "created_at": "2026-11-01T09:30:00Z",
                     *       "updated_at": "2026-11-01T09:30:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AttributeDefinitions_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only the definitions of this kind of object. */
                object_type?: components["schemas"]["AttributeObject"];
                /** @description Archived definitions too. */
                include_archived?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
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
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["AttributeDefinitionList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AttributeDefinitions_create: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "object_type": "lead",
                 *       "key": "plan",
                 *       "label": "Plan",
                 *       "description": "The plan the lead is on.",
                 *       "type": "enum",
                 *       "options": [
                 *         "free",
                 *         "pro",
                 *         "enterprise"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["AttributeDefinitionCreate"];
            };
        };
        responses: {
            /** @description Created, with the new object's `ETag`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["AttributeDefinition"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `options` on a type without them; no `options` for an `enum` or `multi_enum`; `unique` on a `boolean` or `multi_enum`; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AttributeDefinitions_get: {
        parameters: {
            query?: never;
            header?: {
                "If-None-Match"?: components["parameters"]["IfNoneMatchHeader"];
            };
            path: {
                /** @example attr_01JD3Z7N1B2C3D4E5F6G7H8J9K */
                attribute_definition_id: components["schemas"]["AttributeDefinitionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The object, with its `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["AttributeDefinition"];
                };
            };
            /**
             * @description 304 Not Modified (RFC 9110 §15.4.5): the object's current `ETag` is one the request's `If-None-Match` names, so
             *     the copy the client holds is current. No body, and no request of the budget spent.
             */
            304: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AttributeDefinitions_update: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "If-Match"?: components["parameters"]["IfMatchHeader"];
            };
            path: {
                /** @example attr_01JD3Z7N1B2C3D4E5F6G7H8J9K */
                attribute_definition_id: components["schemas"]["AttributeDefinitionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "options": [
                 *         "free",
                 *         "pro",
                 *         "enterprise",
                 *         "education"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["AttributeDefinitionUpdate"];
            };
        };
        responses: {
            /** @description Done, with the object's new `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["AttributeDefinition"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 412 `PRECONDITION_FAILED`: the object changed since the `ETag` the request names; `ETag` is the current one. */
            412: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AttributeDefinitions_archive: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example attr_01JD3Z7N1B2C3D4E5F6G7H8J9K */
                attribute_definition_id: components["schemas"]["AttributeDefinitionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, with the object's new `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["AttributeDefinition"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only conversations in this state. */
                state?: components["schemas"]["ConversationState"];
                /** @description Only conversations with this lead. */
                lead_id?: string;
                /** @description Only conversations assigned to this assignee. */
                assignee?: string;
                /** @description Only conversations created at or after this time. */
                created_after?: string;
                /** @description Only conversations updated at or after this time. */
                updated_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
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
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["ConversationList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_create: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
                 *       "subject": "Question about pricing",
                 *       "channel": "chat",
                 *       "message": {
                 *         "author": {
                 *           "type": "lead",
                 *           "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7"
                 *         },
                 *         "body": "Hi! Do you offer annual billing?"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ConversationCreate"];
            };
        };
        responses: {
            /** @description Created, with the new object's `ETag`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_get: {
        parameters: {
            query?: never;
            header?: {
                "If-None-Match"?: components["parameters"]["IfNoneMatchHeader"];
            };
            path: {
                /** @example conv_01JD3Z7A1B2C3D4E5F6G7H8J9K */
                conversation_id: components["schemas"]["ConversationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The object, with its `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /**
             * @description 304 Not Modified (RFC 9110 §15.4.5): the object's current `ETag` is one the request's `If-None-Match` names, so
             *     the copy the client holds is current. No body, and no request of the budget spent.
             */
            304: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_update: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "If-Match"?: components["parameters"]["IfMatchHeader"];
            };
            path: {
                /** @example conv_01JD3Z7A1B2C3D4E5F6G7H8J9K */
                conversation_id: components["schemas"]["ConversationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "state": "closed"
                 *     }
                 */
                "application/json": components["schemas"]["ConversationUpdate"];
            };
        };
        responses: {
            /** @description Done, with the object's new `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `snoozed` without `snoozed_until` in the future; `snoozed_until` on a conversation that is not snoozed; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 412 `PRECONDITION_FAILED`: the object changed since the `ETag` the request names; `ETag` is the current one. */
            412: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_listMessages: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
            };
            header?: never;
            path: {
                /** @example conv_01JD3Z7A1B2C3D4E5F6G7H8J9K */
                conversation_id: components["schemas"]["ConversationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
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
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["MessageList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_createMessage: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example conv_01JD3Z7A1B2C3D4E5F6G7H8J9K */
                conversation_id: components["schemas"]["ConversationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "author": {
                 *         "type": "agent",
                 *         "id": "agent@example.com"
                 *       },
                 *       "body": "Yes: annual billing saves two months."
                 *     }
                 */
                "application/json": components["schemas"]["MessageCreate"];
            };
        };
        responses: {
            /** @description Created, with the new object's `ETag`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Conversations_getMessage: {
        parameters: {
            query?: never;
            header?: {
                "If-None-Match"?: components["parameters"]["IfNoneMatchHeader"];
            };
            path: {
                /** @example conv_01JD3Z7A1B2C3D4E5F6G7H8J9K */
                conversation_id: components["schemas"]["ConversationId"];
                /** @example msg_01JD3Z7B1B2C3D4E5F6G7H8J9K */
                message_id: components["schemas"]["MessageId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The object, with its `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Message"];
                };
            };
            /**
             * @description 304 Not Modified (RFC 9110 §15.4.5): the object's current `ETag` is one the request's `If-None-Match` names, so
             *     the copy the client holds is current. No body, and no request of the budget spent.
             */
            304: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EventTypes_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Events_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only events of this type. */
                type?: components["schemas"]["EventType"];
                /** @description Only events that happened at or after this time. */
                created_after?: string;
                /**
                 * @description The events after this position, oldest first (in commit order): 0 for the oldest kept, then the last
                 *     `sequence` seen. Not with `cursor`; `next_cursor` is null in this mode.
                 */
                after_sequence?: number;
                /** @description With `after_sequence`: when no event follows it yet, hold the answer up to this many seconds until one commits. */
                wait?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *           "object": "event",
                     *           "livemode": true,
                     *           "type": "lead.captured",
                     *           "sequence": 1,
                     *           "timestamp": "2026-11-01T09:30:00Z",
                     *           "api_version": "1.0",
                     *           "workspace_id": "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
                     *           "data": {
                     *             "object": {
                     *               "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
                     *               "object": "lead",
                     *               "livemode": true,
                     *               "email": "ada@example.com",
                     *               "phone": "+44 20 7946 0958",
                     *               "name": "Ada Lovelace",
                     *               "company": "Analytical Engines Ltd",
                     *               "status": "new",
                     *               "source": "website",
                     *               "tags": [
                     *                 "trial",
                     *                 "enterprise"
                     *               ],
                     *               "custom_attributes": {
                     *                 "plan": "pro"
                     *               },
                     *               "external_id": "crm-4821",
                     *               "created_at": "2026-11-01T09:30:00Z",
                     *               "updated_at": "2026-11-01T09:30:00Z",
                     *               "version": 1
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null,
                     *       "restarted_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["EventList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `cursor` with `after_sequence`; `after_sequence` past the newest event of the workspace; a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 410 `EVENTS_EXPIRED`: the position is before the kept window; `oldest_sequence` says where it starts. */
            410: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Events_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example evt_01JD3Z7D1B2C3D4E5F6G7H8J9K */
                event_id: components["schemas"]["EventId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Event"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Leads_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only leads with this status. */
                status?: components["schemas"]["LeadStatus"];
                /** @description Only the lead with this e-mail address (compared case-insensitively). */
                email?: string;
                /** @description Only the lead with this `external_id`. */
                external_id?: string;
                /** @description Only leads created at or after this time. */
                created_after?: string;
                /** @description Only leads updated at or after this time. */
                updated_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
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
                     *       ],
                     *       "has_more": true,
                     *       "next_cursor": "eyJrIjoibGVhZCJ9"
                     *     }
                     */
                    "application/json": components["schemas"]["LeadList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Leads_create: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "name": "Ada Lovelace",
                 *       "company": "Analytical Engines Ltd",
                 *       "source": "website"
                 *     }
                 */
                "application/json": components["schemas"]["LeadCreate"];
            };
        };
        responses: {
            /** @description Created, with the new object's `ETag`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Lead"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Leads_batchUpsert: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "match_on": "external_id",
                 *       "items": [
                 *         {
                 *           "external_id": "crm-4821",
                 *           "name": "Ada Lovelace",
                 *           "email": "ada@example.com"
                 *         },
                 *         {
                 *           "external_id": "crm-4822",
                 *           "email": "not-an-address"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["LeadBatchUpsert"];
            };
        };
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "result": "updated",
                     *           "object": {
                     *             "id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
                     *             "object": "lead",
                     *             "livemode": true,
                     *             "email": "ada@example.com",
                     *             "phone": "+44 20 7946 0958",
                     *             "name": "Ada Lovelace",
                     *             "company": "Analytical Engines Ltd",
                     *             "status": "new",
                     *             "source": "website",
                     *             "tags": [
                     *               "trial",
                     *               "enterprise"
                     *             ],
                     *             "custom_attributes": {
                     *               "plan": "pro"
                     *             },
                     *             "external_id": "crm-4821",
                     *             "created_at": "2026-11-01T09:30:00Z",
                     *             "updated_at": "2026-11-01T09:30:00Z",
                     *             "version": 1
                     *           }
                     *         },
                     *         {
                     *           "result": "failed",
                     *           "problem": {
                     *             "type": "/problems/validation-failed",
                     *             "title": "The request does not match the contract",
                     *             "status": 400,
                     *             "code": "VALIDATION_FAILED",
                     *             "request_id": "req_01JD3Z8K1B2C3D4E5F6G7H8J9K",
                     *             "errors": [
                     *               {
                     *                 "path": "body.items.1.email",
                     *                 "message": "must be an e-mail address"
                     *               }
                     *             ]
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["LeadBatchResults"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Leads_get: {
        parameters: {
            query?: never;
            header?: {
                "If-None-Match"?: components["parameters"]["IfNoneMatchHeader"];
            };
            path: {
                /** @example lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7 */
                lead_id: components["schemas"]["LeadId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The object, with its `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Lead"];
                };
            };
            /**
             * @description 304 Not Modified (RFC 9110 §15.4.5): the object's current `ETag` is one the request's `If-None-Match` names, so
             *     the copy the client holds is current. No body, and no request of the budget spent.
             */
            304: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Leads_delete: {
        parameters: {
            query?: never;
            header?: {
                "If-Match"?: components["parameters"]["IfMatchHeader"];
            };
            path: {
                /** @example lead_01JD3Z6Q4W2YB7K8N9P0R5S6ZZ */
                lead_id: components["schemas"]["LeadId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; nothing to return. */
            204: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 412 `PRECONDITION_FAILED`: the object changed since the `ETag` the request names; `ETag` is the current one. */
            412: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Leads_update: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "If-Match"?: components["parameters"]["IfMatchHeader"];
            };
            path: {
                /** @example lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7 */
                lead_id: components["schemas"]["LeadId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "contacted"
                 *     }
                 */
                "application/json": components["schemas"]["LeadUpdate"];
            };
        };
        responses: {
            /** @description Done, with the object's new `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Lead"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 412 `PRECONDITION_FAILED`: the object changed since the `ETag` the request names; `ETag` is the current one. */
            412: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TestData_reset: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: the reset runs in the background; `Location` is where to follow it. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The reset's URL, as a path on this server. */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "tdr_01JD3Z7M1B2C3D4E5F6G7H8J9K",
                     *       "object": "test_data_reset",
                     *       "livemode": false,
                     *       "status": "pending",
                     *       "deleted": null,
                     *       "created_at": "2026-11-01T09:00:00Z",
                     *       "completed_at": null
                     *     }
                     */
                    "application/json": components["schemas"]["TestDataReset"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TestData_getReset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example tdr_01JD3Z7M1B2C3D4E5F6G7H8J9K */
                reset_id: components["schemas"]["TestDataResetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "tdr_01JD3Z7M1B2C3D4E5F6G7H8J9K",
                     *       "object": "test_data_reset",
                     *       "livemode": false,
                     *       "status": "succeeded",
                     *       "deleted": {
                     *         "leads": 10000,
                     *         "conversations": 0,
                     *         "messages": 0,
                     *         "tickets": 0,
                     *         "events": 10000,
                     *         "deliveries": 0
                     *       },
                     *       "created_at": "2026-11-01T09:00:00Z",
                     *       "completed_at": "2026-11-01T09:00:01Z"
                     *     }
                     */
                    "application/json": components["schemas"]["TestDataReset"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Tickets_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only tickets with this status. */
                status?: components["schemas"]["TicketStatus"];
                /** @description Only tickets with this priority. */
                priority?: components["schemas"]["Priority"];
                /** @description Only tickets of this lead. */
                lead_id?: string;
                /** @description Only tickets assigned to this assignee. */
                assignee?: string;
                /** @description Only the ticket with this `external_id`. */
                external_id?: string;
                /** @description Only tickets created at or after this time. */
                created_after?: string;
                /** @description Only tickets updated at or after this time. */
                updated_after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
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
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["TicketList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Tickets_create: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subject": "Cannot export invoices",
                 *       "description": "The export button does nothing since Monday.",
                 *       "priority": "high",
                 *       "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7"
                 *     }
                 */
                "application/json": components["schemas"]["TicketCreate"];
            };
        };
        responses: {
            /** @description Created, with the new object's `ETag`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Tickets_batchUpsert: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "match_on": "external_id",
                 *       "items": [
                 *         {
                 *           "external_id": "zd-1042",
                 *           "subject": "Cannot export invoices",
                 *           "status": "open"
                 *         },
                 *         {
                 *           "external_id": "zd-1043",
                 *           "subject": ""
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["TicketBatchUpsert"];
            };
        };
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "result": "updated",
                     *           "object": {
                     *             "id": "tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K",
                     *             "object": "ticket",
                     *             "livemode": true,
                     *             "number": 42,
                     *             "subject": "Cannot export invoices",
                     *             "description": "The export button does nothing since Monday.",
                     *             "status": "open",
                     *             "priority": "high",
                     *             "lead_id": "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
                     *             "conversation_id": "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
                     *             "assignee": "agent@example.com",
                     *             "tags": [
                     *               "billing"
                     *             ],
                     *             "due_at": "2026-11-03T17:00:00Z",
                     *             "solved_at": null,
                     *             "closed_at": null,
                     *             "external_id": "zd-1042",
                     *             "custom_attributes": {
                     *               "plan": "pro"
                     *             },
                     *             "created_at": "2026-11-01T10:00:00Z",
                     *             "updated_at": "2026-11-01T10:05:00Z",
                     *             "version": 2
                     *           }
                     *         },
                     *         {
                     *           "result": "failed",
                     *           "problem": {
                     *             "type": "/problems/validation-failed",
                     *             "title": "The request does not match the contract",
                     *             "status": 400,
                     *             "code": "VALIDATION_FAILED",
                     *             "request_id": "req_01JD3Z8K1B2C3D4E5F6G7H8J9K",
                     *             "errors": [
                     *               {
                     *                 "path": "body.items.1.subject",
                     *                 "message": "must NOT have fewer than 1 characters"
                     *               }
                     *             ]
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["TicketBatchResults"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Tickets_get: {
        parameters: {
            query?: never;
            header?: {
                "If-None-Match"?: components["parameters"]["IfNoneMatchHeader"];
            };
            path: {
                /** @example tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K */
                ticket_id: components["schemas"]["TicketId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The object, with its `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /**
             * @description 304 Not Modified (RFC 9110 §15.4.5): the object's current `ETag` is one the request's `If-None-Match` names, so
             *     the copy the client holds is current. No body, and no request of the budget spent.
             */
            304: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Tickets_update: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
                "If-Match"?: components["parameters"]["IfMatchHeader"];
            };
            path: {
                /** @example tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K */
                ticket_id: components["schemas"]["TicketId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "solved"
                 *     }
                 */
                "application/json": components["schemas"]["TicketUpdate"];
            };
        };
        responses: {
            /** @description Done, with the object's new `ETag`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
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
                    "application/json": components["schemas"]["Ticket"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 412 `PRECONDITION_FAILED`: the object changed since the `ETag` the request names; `ETag` is the current one. */
            412: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    ETag: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_list: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *           "object": "webhook",
                     *           "livemode": true,
                     *           "url": "https://hooks.example.com/service",
                     *           "events": [
                     *             "lead.captured",
                     *             "ticket.updated"
                     *           ],
                     *           "description": "CRM sync",
                     *           "enabled": true,
                     *           "disabled_reason": null,
                     *           "disabled_at": null,
                     *           "max_deliveries_per_second": null,
                     *           "max_concurrent_deliveries": null,
                     *           "secret_rotated_at": null,
                     *           "created_at": "2026-11-01T08:00:00Z",
                     *           "updated_at": "2026-11-01T08:00:00Z"
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_create: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/service",
                 *       "events": [
                 *         "lead.captured",
                 *         "ticket.updated"
                 *       ],
                 *       "description": "CRM sync"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookCreate"];
            };
        };
        responses: {
            /** @description Created. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            201: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    /** @description The new object's URL, as a path on this server (RFC 9110 §10.2.2): where `GET` reads it. */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z",
                     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Rgew9s6Yzo="
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_delete: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8JZZ */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; nothing to return. */
            204: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_update: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": false
                 *     }
                 */
                "application/json": components["schemas"]["WebhookUpdate"];
            };
        };
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_listDeliveries: {
        parameters: {
            query?: {
                /** @description How many objects to return, 1 to 100. */
                limit?: components["parameters"]["ListQuery.limit"];
                /** @description The `next_cursor` of the previous page; opaque. */
                cursor?: components["parameters"]["ListQuery.cursor"];
                /** @description Only deliveries in this state. */
                status?: components["schemas"]["DeliveryStatus"];
            };
            header?: never;
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "list",
                     *       "data": [
                     *         {
                     *           "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *           "object": "delivery",
                     *           "livemode": true,
                     *           "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *           "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *           "event_type": "lead.captured",
                     *           "status": "succeeded",
                     *           "attempt_count": 1,
                     *           "next_attempt_at": null,
                     *           "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *           "attempts": [
                     *             {
                     *               "attempt": 1,
                     *               "started_at": "2026-11-01T09:30:00Z",
                     *               "duration_ms": 84,
                     *               "response_status": 200,
                     *               "response_body": "ok",
                     *               "error": null,
                     *               "request_headers": {
                     *                 "content-type": "application/json",
                     *                 "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *                 "webhook-timestamp": "1793525400",
                     *                 "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *                 "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *                 "X-Service-Event": "lead.captured",
                     *                 "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *                 "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *               }
                     *             }
                     *           ],
                     *           "created_at": "2026-11-01T09:30:00Z",
                     *           "updated_at": "2026-11-01T09:30:00Z"
                     *         }
                     *       ],
                     *       "has_more": false,
                     *       "next_cursor": null
                     *     }
                     */
                    "application/json": components["schemas"]["DeliveryList"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a cursor that this list did not give; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_getDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
                /** @example dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K */
                delivery_id: components["schemas"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *       "object": "delivery",
                     *       "livemode": true,
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *       "event_type": "lead.captured",
                     *       "status": "succeeded",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *       "attempts": [
                     *         {
                     *           "attempt": 1,
                     *           "started_at": "2026-11-01T09:30:00Z",
                     *           "duration_ms": 84,
                     *           "response_status": 200,
                     *           "response_body": "ok",
                     *           "error": null,
                     *           "request_headers": {
                     *             "content-type": "application/json",
                     *             "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *             "webhook-timestamp": "1793525400",
                     *             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Event": "lead.captured",
                     *             "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *             "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *           }
                     *         }
                     *       ],
                     *       "created_at": "2026-11-01T09:30:00Z",
                     *       "updated_at": "2026-11-01T09:30:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_redeliver: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
                /** @example dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K */
                delivery_id: components["schemas"]["DeliveryId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted: the work continues in the background. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *       "object": "delivery",
                     *       "livemode": true,
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *       "event_type": "lead.captured",
                     *       "status": "succeeded",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *       "attempts": [
                     *         {
                     *           "attempt": 1,
                     *           "started_at": "2026-11-01T09:30:00Z",
                     *           "duration_ms": 84,
                     *           "response_status": 200,
                     *           "response_body": "ok",
                     *           "error": null,
                     *           "request_headers": {
                     *             "content-type": "application/json",
                     *             "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *             "webhook-timestamp": "1793525400",
                     *             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Event": "lead.captured",
                     *             "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *             "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *           }
                     *         }
                     *       ],
                     *       "created_at": "2026-11-01T09:30:00Z",
                     *       "updated_at": "2026-11-01T09:30:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_recover: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-11-01T00:00:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookRecoverRequest"];
            };
        };
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookRecovery"];
                };
            };
            /** @description Accepted: the work continues in the background. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "webhook_recovery",
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "since": "2026-11-01T00:00:00Z",
                     *       "until": "2026-11-01T06:00:00Z",
                     *       "include_missed": false,
                     *       "dry_run": false,
                     *       "failed_deliveries": 5000,
                     *       "missed_events": 0
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookRecovery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `since` in the future, without `until` (the window ends now); `until` not after `since`; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_rotateSecret: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done. A replay of an earlier request with the same `Idempotency-Key` carries `Idempotent-Replayed: true`. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "object": "webhook",
                     *       "livemode": true,
                     *       "url": "https://hooks.example.com/service",
                     *       "events": [
                     *         "lead.captured",
                     *         "ticket.updated"
                     *       ],
                     *       "description": "CRM sync",
                     *       "enabled": true,
                     *       "disabled_reason": null,
                     *       "disabled_at": null,
                     *       "max_deliveries_per_second": null,
                     *       "max_concurrent_deliveries": null,
                     *       "secret_rotated_at": null,
                     *       "created_at": "2026-11-01T08:00:00Z",
                     *       "updated_at": "2026-11-01T08:00:00Z",
                     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Rgew9s6Yzo="
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_stats: {
        parameters: {
            query?: {
                /** @description The window's start; omitted: 24 hours ago. */
                since?: string;
            };
            header?: never;
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request succeeded. */
            200: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "object": "webhook_stats",
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "since": "2026-10-31T09:30:00Z",
                     *       "until": "2026-11-01T09:30:00Z",
                     *       "deliveries": {
                     *         "succeeded": 4980,
                     *         "failed": 12,
                     *         "pending": 8
                     *       },
                     *       "attempts": 5031,
                     *       "success_rate": 0.9976,
                     *       "response_time_ms": {
                     *         "p50": 84,
                     *         "p99": 912
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["WebhookStats"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: `since` in the future; a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    Webhooks_sendTest: {
        parameters: {
            query?: never;
            header?: {
                "Idempotency-Key"?: components["parameters"]["IdempotencyKeyHeader"];
            };
            path: {
                /** @example wh_01JD3Z7E1B2C3D4E5F6G7H8J9K */
                webhook_id: components["schemas"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event_type": "lead.captured"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookTestRequest"];
            };
        };
        responses: {
            /** @description Accepted: the work continues in the background. */
            202: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *       "object": "delivery",
                     *       "livemode": true,
                     *       "webhook_id": "wh_01JD3Z7E1B2C3D4E5F6G7H8J9K",
                     *       "event_id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *       "event_type": "lead.captured",
                     *       "status": "succeeded",
                     *       "attempt_count": 1,
                     *       "next_attempt_at": null,
                     *       "payload": "{\"id\":\"evt_01JD3Z7D1B2C3D4E5F6G7H8J9K\",\"type\":\"lead.captured\"}",
                     *       "attempts": [
                     *         {
                     *           "attempt": 1,
                     *           "started_at": "2026-11-01T09:30:00Z",
                     *           "duration_ms": 84,
                     *           "response_status": 200,
                     *           "response_body": "ok",
                     *           "error": null,
                     *           "request_headers": {
                     *             "content-type": "application/json",
                     *             "webhook-id": "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
                     *             "webhook-timestamp": "1793525400",
                     *             "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                     *             "X-Service-Event": "lead.captured",
                     *             "X-Service-Delivery": "dlv_01JD3Z7F1B2C3D4E5F6G7H8J9K",
                     *             "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                     *           }
                     *         }
                     *       ],
                     *       "created_at": "2026-11-01T09:30:00Z",
                     *       "updated_at": "2026-11-01T09:30:00Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description 400 `VALIDATION_FAILED`, `MALFORMED_JSON`, `INVALID_CURSOR` and the other 400 codes. Refused beyond the schemas: a query parameter that the operation does not list. */
            400: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 401 `UNAUTHENTICATED`, with `WWW-Authenticate` naming the scheme. */
            401: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 403 `INSUFFICIENT_SCOPE` or `CSRF_TOKEN_INVALID`. */
            403: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 404: the object does not exist in this workspace (another workspace's object is a 404 too). */
            404: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 409 `IDEMPOTENCY_KEY_IN_USE`, `INVALID_STATE_TRANSITION` and other conflicts with the current state. */
            409: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 413 `PAYLOAD_TOO_LARGE`. */
            413: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 415 `UNSUPPORTED_MEDIA_TYPE`. */
            415: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 422 `IDEMPOTENCY_KEY_REUSED` and other well-formed requests that cannot be carried out. */
            422: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description 429 `RATE_LIMITED`: wait `Retry-After` seconds. */
            429: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    "Retry-After": number;
                    /** @description The quota policies that apply: name, quota `q` and window `w` in seconds. */
                    "RateLimit-Policy": string;
                    /** @description The remaining quota `r` and the seconds `t` until the window resets, for the policy closest to its limit. */
                    RateLimit: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Any other error: a problem+json body with a status and code from the catalog. */
            default: {
                headers: {
                    /** @description The id of this request: quote it when asking for support. */
                    "Request-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WebhookEvents_attributeDefinitionArchived: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AttributeDefinitionArchivedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_attributeDefinitionCreated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AttributeDefinitionCreatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_attributeDefinitionUpdated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AttributeDefinitionUpdatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_conversationCreated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationCreatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_conversationUpdated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationUpdatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_leadCaptured: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeadCapturedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_leadDeleted: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeadDeletedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_leadUpdated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LeadUpdatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_messageCreated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageCreatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookEvents_ticketUpdated: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description `v1,<base64>`: HMAC-SHA256 with the base64-decoded part of the secret after `whsec_`, over
                 *     `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation, several values separated by spaces.
                 */
                "X-Service-Signature": components["parameters"]["WebhookDeliveryHeaders.serviceSignature"];
                /** @description The same value as `X-Service-Signature` (Standard Webhooks name). */
                "webhook-signature": components["parameters"]["WebhookDeliveryHeaders.webhookSignature"];
                /** @description The event id, the same on every retry: deduplicate by it. */
                "webhook-id": components["parameters"]["WebhookDeliveryHeaders.webhookId"];
                /** @description Unix seconds when this attempt was signed; reject values far from your clock. */
                "webhook-timestamp": components["parameters"]["WebhookDeliveryHeaders.webhookTimestamp"];
                /** @description The event type. */
                "X-Service-Event": components["parameters"]["WebhookDeliveryHeaders.serviceEvent"];
                /** @description The delivery id. */
                "X-Service-Delivery": components["parameters"]["WebhookDeliveryHeaders.serviceDelivery"];
                /**
                 * @description W3C Trace Context: the trace of the request that caused the event, with a span id of this attempt's own, so the
                 *     receiver's work joins the caller's trace. `tracestate` comes with it when the caller sent one.
                 */
                traceparent: components["parameters"]["WebhookDeliveryHeaders.traceparent"];
                tracestate?: components["parameters"]["WebhookDeliveryHeaders.tracestate"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TicketUpdatedEvent"];
            };
        };
        responses: {
            /** @description 410 Gone: the endpoint no longer wants deliveries; the subscription is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            429: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 429 or 503: the delivery is retried, not before `Retry-After` seconds. */
            503: {
                headers: {
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any 2xx: the delivery succeeded. Answer quickly (within 15 seconds) and process asynchronously. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
