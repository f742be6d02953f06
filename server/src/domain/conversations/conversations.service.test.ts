/** The rules of a conversation write, without a database: the state table and what a patch sets or is refused. */
import { describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import {
  CONVERSATION_TRANSITIONS,
  type Conversation,
  conversationChanges,
  toConversation,
  toMessage,
} from "./conversations.service.ts";
import type { ConversationRow } from "./conversations.store.ts";

type State = Conversation["state"];
const STATES: State[] = ["open", "snoozed", "closed"];

const NOW = new Date("2026-11-01T09:00:00.000Z");
const LATER = "2026-11-02T09:00:00.000Z";
const EARLIER = "2026-10-31T09:00:00.000Z";

/** The AppError that `run` throws (any other outcome fails the test). */
function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal, got an answer");
}

describe("CONVERSATION_TRANSITIONS", () => {
  // spec/models/conversations.tsp: open ⇄ snoozed, either → closed, closed → open.
  it.each<[State, State, boolean]>([
    ["open", "snoozed", true],
    ["open", "closed", true],
    ["snoozed", "open", true],
    ["snoozed", "closed", true],
    ["closed", "open", true],
    ["closed", "snoozed", false],
  ])("%s → %s allowed: %s", (from, to, want) => {
    expect(CONVERSATION_TRANSITIONS[from].includes(to)).toBe(want);
  });

  it("lists every state, and no state as a move to itself", () => {
    expect(Object.keys(CONVERSATION_TRANSITIONS).sort()).toEqual([...STATES].sort());
    for (const state of STATES) expect(CONVERSATION_TRANSITIONS[state]).not.toContain(state);
  });
});

describe("conversationChanges", () => {
  const open = { state: "open" as const, snoozed_until: null };
  const snoozed = { state: "snoozed" as const, snoozed_until: new Date(LATER) };

  it("snoozes an open conversation until a future time", () => {
    expect(conversationChanges(open, { state: "snoozed", snoozed_until: LATER }, NOW)).toEqual({
      state: "snoozed",
      snoozed_until: LATER,
    });
  });

  it.each([
    ["no snoozed_until", {}],
    ["snoozed_until in the past", { snoozed_until: EARLIER }],
    ["snoozed_until now", { snoozed_until: NOW.toISOString() }],
  ])("refuses to snooze with %s (400 VALIDATION_FAILED)", (_, patch) => {
    const error = refusal(() => conversationChanges(open, { state: "snoozed", ...patch }, NOW));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.errors?.[0]?.path).toBe("body.snoozed_until");
  });

  it("keeps the current snoozed_until when a snoozed conversation stays snoozed: only the subject changes", () => {
    expect(conversationChanges(snoozed, { subject: "Renamed" }, NOW)).toEqual({ subject: "Renamed" });
  });

  it("clears snoozed_until when a snoozed conversation reopens or closes", () => {
    expect(conversationChanges(snoozed, { state: "open" }, NOW)).toEqual({ state: "open", snoozed_until: null });
    expect(conversationChanges(snoozed, { state: "closed" }, NOW)).toEqual({ state: "closed", snoozed_until: null });
  });

  it("refuses snoozed_until on a conversation that is not becoming snoozed", () => {
    const error = refusal(() => conversationChanges(open, { snoozed_until: LATER }, NOW));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.errors).toEqual([
      { path: "body.snoozed_until", message: "only a snoozed conversation has snoozed_until" },
    ]);
  });

  it("takes an explicit null snoozed_until on an open conversation", () => {
    expect(conversationChanges(open, { snoozed_until: null, assignee: "ada" }, NOW)).toEqual({ assignee: "ada" });
  });

  it("refuses a move outside the table with 409 INVALID_STATE_TRANSITION, naming the allowed moves", () => {
    const error = refusal(() =>
      conversationChanges({ state: "closed", snoozed_until: null }, { state: "snoozed", snoozed_until: LATER }, NOW),
    );
    expect(error.code).toBe("INVALID_STATE_TRANSITION");
    expect(error.detail).toBe("A closed conversation cannot become snoozed; allowed: open.");
  });

  it.each([
    ["before now", EARLIER],
    ["exactly now", NOW.toISOString()],
  ])("starts from open when the snooze ended %s, and writes the reopening", (_, until) => {
    const ended = { state: "snoozed" as const, snoozed_until: new Date(until) };
    expect(conversationChanges(ended, { assignee: "ada" }, NOW)).toEqual({
      assignee: "ada",
      state: "open",
      snoozed_until: null,
    });
    // Stored as snoozed still (its job has not run): snoozing again changes only the time.
    expect(conversationChanges(ended, { state: "snoozed", snoozed_until: LATER }, NOW)).toEqual({
      snoozed_until: LATER,
    });
    expect(conversationChanges(ended, { state: "closed" }, NOW)).toEqual({ state: "closed", snoozed_until: null });
    const error = refusal(() => conversationChanges(ended, { snoozed_until: LATER }, NOW));
    expect(error.code).toBe("VALIDATION_FAILED");
  });

  it("treats the current state as no move, and a patch of current values as no change", () => {
    const closed = { state: "closed" as const, snoozed_until: null };
    expect(conversationChanges(closed, { state: "closed", priority: "high" }, NOW)).toEqual({ priority: "high" });
    expect(conversationChanges({ ...closed, priority: "high" }, { state: "closed", priority: "high" }, NOW)).toEqual(
      {},
    );
  });
});

describe("wire shapes", () => {
  it("maps a conversation row, timestamps as ISO text and nulls kept", () => {
    const row: ConversationRow = {
      id: "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
      workspace_id: "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
      lead_id: null,
      subject: "Pricing",
      channel: "chat",
      state: "snoozed",
      snoozed_until: new Date(LATER),
      assignee: null,
      priority: "normal",
      last_message_at: null,
      message_count: 0,
      custom_attributes: { region: "emea" },
      created_at: NOW,
      updated_at: NOW,
      version: 3,
    };
    expect(toConversation(row)).toEqual({
      id: row.id,
      object: "conversation",
      livemode: true,
      lead_id: null,
      subject: "Pricing",
      channel: "chat",
      state: "snoozed",
      snoozed_until: LATER,
      assignee: null,
      priority: "normal",
      last_message_at: null,
      message_count: 0,
      custom_attributes: { region: "emea" },
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
      version: 3,
    });
  });

  it("maps a message row, its author as one object", () => {
    expect(
      toMessage({
        id: "msg_01JD3Z7B1B2C3D4E5F6G7H8J9K",
        workspace_id: "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
        conversation_id: "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
        author_type: "agent",
        author_id: "agent@example.com",
        body: "Yes.",
        visibility: "internal",
        created_at: NOW,
        version: 1,
      }),
    ).toEqual({
      id: "msg_01JD3Z7B1B2C3D4E5F6G7H8J9K",
      object: "message",
      livemode: true,
      conversation_id: "conv_01JD3Z7A1B2C3D4E5F6G7H8J9K",
      author: { type: "agent", id: "agent@example.com" },
      body: "Yes.",
      visibility: "internal",
      created_at: NOW.toISOString(),
      version: 1,
    });
  });
});
