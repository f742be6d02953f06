/** The rules of a ticket write, without a database: the status table, the stamps, and which fields really change. */
import { describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import { fieldsSetOnCreate, TICKET_TRANSITIONS, type Ticket, ticketChanges, toTicket } from "./tickets.service.ts";
import type { TicketRow } from "./tickets.store.ts";

type Status = Ticket["status"];
const STATUSES: Status[] = ["new", "open", "pending", "on_hold", "solved", "closed"];

const NOW = new Date("2026-11-01T09:00:00.000Z");

/** One valid ticket; each test changes what it is about. */
const ROW: TicketRow = {
  id: "tkt_01JD3Z7C1B2C3D4E5F6G7H8J9K",
  workspace_id: "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
  number: 42,
  subject: "Cannot export invoices",
  description: "The export button does nothing since Monday.",
  status: "open",
  priority: "high",
  lead_id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
  conversation_id: null,
  assignee: null,
  tags: ["billing", "export"],
  due_at: new Date("2026-11-05T17:00:00.000Z"),
  solved_at: null,
  closed_at: null,
  external_id: null,
  custom_attributes: {},
  created_at: new Date("2026-10-30T08:00:00.000Z"),
  updated_at: new Date("2026-10-30T08:00:00.000Z"),
  version: 1,
};
const ticket = (changes: Partial<Ticket> = {}): Ticket => ({ ...toTicket(ROW), ...changes });

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

describe("TICKET_TRANSITIONS", () => {
  // The table of spec/models/tickets.tsp, row by row: from → every status it may become.
  const want: Record<Status, Status[]> = {
    new: ["open", "pending", "on_hold", "solved", "closed"],
    open: ["pending", "on_hold", "solved", "closed"],
    pending: ["open", "on_hold", "solved", "closed"],
    on_hold: ["open", "pending", "solved", "closed"],
    solved: ["open", "closed"],
    closed: [],
  };

  it.each(STATUSES)("%s moves exactly as the contract's table says", (from) => {
    expect([...TICKET_TRANSITIONS[from]].sort()).toEqual([...want[from]].sort());
  });

  it("never leads back to new, and never from closed", () => {
    for (const from of STATUSES) expect(TICKET_TRANSITIONS[from]).not.toContain("new");
    expect(TICKET_TRANSITIONS.closed).toEqual([]);
  });
});

describe("ticketChanges", () => {
  it("moves open → pending and names only status as changed", () => {
    expect(ticketChanges(ticket(), { status: "pending" }, NOW)).toEqual({
      changes: { status: "pending" },
      changed: ["status"],
    });
  });

  it("stamps solved_at on solving and closed_at on closing, at now", () => {
    expect(ticketChanges(ticket(), { status: "solved" }, NOW)).toEqual({
      changes: { status: "solved", solved_at: NOW.toISOString() },
      changed: ["status", "solved_at"],
    });
    expect(ticketChanges(ticket(), { status: "closed" }, NOW)).toEqual({
      changes: { status: "closed", closed_at: NOW.toISOString() },
      changed: ["status", "closed_at"],
    });
  });

  it("clears solved_at when a solved ticket reopens", () => {
    const solved = ticket({ status: "solved", solved_at: "2026-10-31T09:00:00.000Z" });
    expect(ticketChanges(solved, { status: "open" }, NOW)).toEqual({
      changes: { status: "open", solved_at: null },
      changed: ["status", "solved_at"],
    });
  });

  it.each<[Status, Status, string]>([
    ["open", "new", "A open ticket cannot become new; allowed: pending, on_hold, solved, closed."],
    ["solved", "pending", "A solved ticket cannot become pending; allowed: open, closed."],
    ["closed", "open", "A closed ticket cannot become open; closed is final."],
  ])("refuses %s → %s with 409 INVALID_STATE_TRANSITION", (from, to, detail) => {
    const error = refusal(() => ticketChanges(ticket({ status: from }), { status: to }, NOW));
    expect(error.code).toBe("INVALID_STATE_TRANSITION");
    expect(error.detail).toBe(detail);
  });

  it("changes nothing when the patch repeats the current values", () => {
    const same = ticketChanges(
      ticket(),
      { status: "open", subject: ROW.subject, priority: "high", assignee: null, conversation_id: null },
      NOW,
    );
    expect(same.changed).toEqual([]);
  });

  it("compares timestamps as instants, not as text", () => {
    expect(ticketChanges(ticket(), { due_at: "2026-11-05T18:00:00+01:00" }, NOW).changed).toEqual([]);
    expect(ticketChanges(ticket(), { due_at: "2026-11-05T18:00:00Z" }, NOW).changed).toEqual(["due_at"]);
  });

  it("de-duplicates tags in first order, and a repeated set is no change", () => {
    expect(ticketChanges(ticket(), { tags: ["billing", "export", "billing"] }, NOW)).toEqual({
      changes: { tags: ["billing", "export"] },
      changed: [],
    });
    expect(ticketChanges(ticket(), { tags: ["vip", "vip", "billing"] }, NOW).changes.tags).toEqual(["vip", "billing"]);
  });

  it("counts a null that clears a field as a change", () => {
    expect(ticketChanges(ticket(), { description: null, lead_id: null }, NOW).changed).toEqual([
      "description",
      "lead_id",
    ]);
  });
});

describe("fieldsSetOnCreate", () => {
  it("names the fields a new ticket has, leaving out nulls and empty tags", () => {
    expect(fieldsSetOnCreate(ticket())).toEqual([
      "subject",
      "description",
      "status",
      "priority",
      "lead_id",
      "tags",
      "due_at",
    ]);
    expect(fieldsSetOnCreate(ticket({ description: null, lead_id: null, tags: [], due_at: null }))).toEqual([
      "subject",
      "status",
      "priority",
    ]);
  });
});

describe("toTicket", () => {
  it("writes timestamps as ISO text and keeps nulls", () => {
    expect(toTicket(ROW)).toMatchObject({
      object: "ticket",
      number: 42,
      due_at: "2026-11-05T17:00:00.000Z",
      solved_at: null,
      closed_at: null,
      created_at: "2026-10-30T08:00:00.000Z",
    });
  });
});
