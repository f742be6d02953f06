import { describe, expect, it } from "vitest";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

describe("conversations and messages through the SDK", () => {
  it("creates a conversation with its first message, lists and adds messages, and records conversation.created", async () => {
    const client = await clientFor(service());
    const lead = ok(await client.POST("/v1/leads", { body: { email: "lead@example.com" } }));
    const conversation = ok(
      await client.POST("/v1/conversations", {
        body: {
          lead_id: lead.id,
          subject: "Pricing",
          channel: "chat",
          message: { author: { type: "lead", id: lead.id }, body: "Annual billing?" },
        },
      }),
    );
    expect(conversation).toMatchObject({
      object: "conversation",
      state: "open",
      message_count: 1,
      lead_id: lead.id,
      priority: "normal",
    });
    const reply = ok(
      await client.POST("/v1/conversations/{conversation_id}/messages", {
        params: { path: { conversation_id: conversation.id } },
        body: { author: { type: "agent", id: "agent@example.com" }, body: "Yes.", visibility: "public" },
      }),
    );
    const bodies: string[] = [];
    for await (const message of client.conversations.messages(conversation.id)) bodies.push(message.body);
    expect(bodies).toEqual(["Yes.", "Annual billing?"]);
    const after = ok(
      await client.GET("/v1/conversations/{conversation_id}", {
        params: { path: { conversation_id: conversation.id } },
      }),
    );
    expect(after).toMatchObject({ message_count: 2, last_message_at: reply.created_at });

    const events = [];
    for await (const event of client.events.list({ type: "conversation.created" })) events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.object).toEqual(conversation);

    const byLead = [];
    for await (const item of client.conversations.list({ lead_id: lead.id, state: "open" })) byLead.push(item.id);
    expect(byLead).toEqual([conversation.id]);
    const message = (conversationId: string) =>
      client.GET("/v1/conversations/{conversation_id}/messages/{message_id}", {
        params: { path: { conversation_id: conversationId, message_id: reply.id } },
      });
    expect(ok(await message(conversation.id))).toEqual(reply);
    // A message is found only under its own conversation.
    const other = ok(await client.POST("/v1/conversations", { body: {} }));
    const elsewhere = await message(other.id);
    expect(elsewhere.response.status).toBe(404);
    expect(elsewhere.error).toMatchObject({ code: "MESSAGE_NOT_FOUND" });
  });

  it("snoozes until a future time, reopens, closes, and refuses illegal moves", async () => {
    const client = await clientFor(service());
    const { id } = ok(await client.POST("/v1/conversations", { body: {} }));
    const path = { params: { path: { conversation_id: id } } };
    const noTime = await client.PATCH("/v1/conversations/{conversation_id}", { ...path, body: { state: "snoozed" } });
    expect(noTime.error).toMatchObject({ code: "VALIDATION_FAILED" });
    const past = await client.PATCH("/v1/conversations/{conversation_id}", {
      ...path,
      body: { state: "snoozed", snoozed_until: new Date(Date.now() - 1000).toISOString() },
    });
    expect(past.error).toMatchObject({ code: "VALIDATION_FAILED" });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const snoozed = ok(
      await client.PATCH("/v1/conversations/{conversation_id}", {
        ...path,
        body: { state: "snoozed", snoozed_until: until },
      }),
    );
    expect(snoozed).toMatchObject({ state: "snoozed", snoozed_until: until });
    const closed = ok(
      await client.PATCH("/v1/conversations/{conversation_id}", { ...path, body: { state: "closed" } }),
    );
    expect(closed).toMatchObject({ state: "closed", snoozed_until: null });
    const resnooze = await client.PATCH("/v1/conversations/{conversation_id}", {
      ...path,
      body: { state: "snoozed", snoozed_until: until },
    });
    expect(resnooze.error).toMatchObject({ status: 409, code: "INVALID_STATE_TRANSITION" });
    expect(
      ok(
        await client.PATCH("/v1/conversations/{conversation_id}", { ...path, body: { state: "open", assignee: "bo" } }),
      ),
    ).toMatchObject({
      state: "open",
      assignee: "bo",
    });
  });
});
