/** The objects of test events (`POST …/webhooks/{id}/test`): realistic shapes, marked as samples. */
import type { components } from "@service/spec/schema";
import { newId } from "../../lib/ids.ts";

type Schemas = components["schemas"];
type EventType = Schemas["EventType"];

export function sampleObject(type: EventType, now = new Date()): Record<string, unknown> {
  const at = now.toISOString();
  switch (type) {
    case "lead.captured":
      return {
        object: {
          id: newId("lead"),
          object: "lead",
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
        } satisfies Schemas["Lead"],
      };
    case "conversation.created":
      return {
        object: {
          id: newId("conversation"),
          object: "conversation",
          lead_id: null,
          subject: "Sample conversation",
          channel: "api",
          state: "open",
          snoozed_until: null,
          assignee: null,
          priority: "normal",
          last_message_at: null,
          message_count: 0,
          created_at: at,
          updated_at: at,
        } satisfies Schemas["Conversation"],
      };
    case "ticket.updated":
      return {
        object: {
          id: newId("ticket"),
          object: "ticket",
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
          created_at: at,
          updated_at: at,
        } satisfies Schemas["Ticket"],
        changed_fields: ["status"],
        previous_attributes: { status: "new" },
      };
  }
}
