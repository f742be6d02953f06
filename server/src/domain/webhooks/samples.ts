/** The objects of test events (`POST …/webhooks/{id}/test`): realistic shapes, marked as samples. */
import type { components } from "@service/spec/schema";
import { newId } from "../../lib/ids.ts";

type Schemas = components["schemas"];
type EventType = Schemas["EventType"];

function sampleLead(at: string, livemode: boolean): Schemas["Lead"] {
  return {
    id: newId("lead"),
    object: "lead",
    livemode,
    email: "sample.lead@example.com",
    phone: null,
    name: "Sample Lead",
    company: "Example Inc",
    status: "new",
    source: "webhook-test",
    tags: ["sample"],
    custom_attributes: {},
    external_id: null,
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

function sampleConversation(at: string, livemode: boolean): Schemas["Conversation"] {
  return {
    id: newId("conversation"),
    object: "conversation",
    livemode,
    lead_id: null,
    subject: "Sample conversation",
    channel: "api",
    state: "open",
    snoozed_until: null,
    assignee: null,
    priority: "normal",
    last_message_at: null,
    message_count: 0,
    custom_attributes: {},
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

function sampleTicket(at: string, livemode: boolean): Schemas["Ticket"] {
  return {
    id: newId("ticket"),
    object: "ticket",
    livemode,
    number: 1,
    subject: "Sample ticket",
    description: null,
    status: "open",
    priority: "normal",
    lead_id: null,
    conversation_id: null,
    assignee: null,
    tags: ["sample"],
    due_at: null,
    solved_at: null,
    closed_at: null,
    external_id: null,
    custom_attributes: {},
    created_at: at,
    updated_at: at,
    version: 2,
  };
}

function sampleMessage(at: string, livemode: boolean): Schemas["Message"] {
  return {
    id: newId("message"),
    object: "message",
    livemode,
    conversation_id: newId("conversation"),
    author: { type: "lead", id: null },
    body: "A sample message.",
    visibility: "public",
    created_at: at,
    version: 1,
  };
}

function sampleDefinition(at: string, livemode: boolean): Schemas["AttributeDefinition"] {
  return {
    id: newId("attributeDefinition"),
    object: "attribute_definition",
    livemode,
    object_type: "lead",
    key: "sample_plan",
    label: "Sample plan",
    description: null,
    type: "enum",
    options: ["free", "pro"],
    required: false,
    unique: false,
    archived_at: null,
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

/** The `data` of a test event of `type`, in a mode: the shape its real events have. */
export function sampleObject(type: EventType, livemode: boolean, now = new Date()): Record<string, unknown> {
  const at = now.toISOString();
  switch (type) {
    case "lead.captured":
    case "lead.deleted":
      return { object: sampleLead(at, livemode) };
    case "lead.updated":
      return {
        object: { ...sampleLead(at, livemode), status: "contacted", version: 2 },
        changed_fields: ["status"],
        previous_attributes: { status: "new" },
      };
    case "conversation.created":
      return { object: sampleConversation(at, livemode) };
    case "conversation.updated":
      return {
        object: { ...sampleConversation(at, livemode), state: "closed", version: 2 },
        changed_fields: ["state"],
        previous_attributes: { state: "open" },
      };
    case "message.created":
      return { object: sampleMessage(at, livemode) };
    case "ticket.updated":
      return {
        object: sampleTicket(at, livemode),
        changed_fields: ["status"],
        previous_attributes: { status: "new" },
      };
    case "attribute_definition.created":
      return { object: sampleDefinition(at, livemode) };
    case "attribute_definition.updated":
      return {
        object: { ...sampleDefinition(at, livemode), label: "Plan", version: 2 },
        changed_fields: ["label"],
        previous_attributes: { label: "Sample plan" },
      };
    case "attribute_definition.archived":
      return { object: { ...sampleDefinition(at, livemode), archived_at: at, version: 2 } };
  }
}
