import { describe, expect, it } from "vitest";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

describe("tickets through the SDK", () => {
  it("numbers tickets per workspace from 1 without gaps, even when created concurrently", async () => {
    const client = await clientFor(service());
    const other = await clientFor(service());
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.POST("/v1/tickets", { body: { subject: `t${i}` } })),
    );
    expect(created.map((answer) => ok(answer).number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect(ok(await other.POST("/v1/tickets", { body: { subject: "first elsewhere" } })).number).toBe(1);
    // A refused creation (unknown lead) gives its number back.
    const refused = await client.POST("/v1/tickets", {
      body: { subject: "x", lead_id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7" },
    });
    expect(refused.error).toMatchObject({ code: "LEAD_NOT_FOUND" });
    expect(ok(await client.POST("/v1/tickets", { body: { subject: "next" } })).number).toBe(21);
  });

  it("follows the legal status moves, stamps solved_at and closed_at, and never goes back to new", async () => {
    const client = await clientFor(service());
    const ticket = ok(await client.POST("/v1/tickets", { body: { subject: "Export broken", priority: "high" } }));
    const path = { params: { path: { ticket_id: ticket.id } } };
    const solved = ok(await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { status: "solved" } }));
    expect(solved.solved_at).not.toBeNull();
    const reopened = ok(await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { status: "open" } }));
    expect(reopened).toMatchObject({ status: "open", solved_at: null });
    const backToNew = await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { status: "new" } });
    expect(backToNew.error).toMatchObject({ status: 409, code: "INVALID_STATE_TRANSITION" });
    const closed = ok(await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { status: "closed" } }));
    expect(closed.closed_at).not.toBeNull();
    for (const status of ["new", "open", "solved"] as const) {
      const moved = await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { status } });
      expect(moved.error, status).toMatchObject({ code: "INVALID_STATE_TRANSITION" });
    }
    // The refused moves changed nothing: the ticket reads as it was closed.
    expect(ok(await client.GET("/v1/tickets/{ticket_id}", path))).toEqual(closed);
  });

  it("records ticket.updated on creation and on each real change, with the changed fields and their old values", async () => {
    const client = await clientFor(service());
    const ticket = ok(await client.POST("/v1/tickets", { body: { subject: "Slow", tags: ["perf"] } }));
    const path = { params: { path: { ticket_id: ticket.id } } };
    ok(await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { priority: "urgent", subject: "Slow" } }));
    ok(await client.PATCH("/v1/tickets/{ticket_id}", { ...path, body: { subject: "Slow" } }));
    const events = [];
    for await (const event of client.events.list({ type: "ticket.updated" })) events.push(event);
    expect(events).toHaveLength(2);
    const [change, creation] = events as [(typeof events)[number], (typeof events)[number]];
    expect(creation.data).toMatchObject({
      changed_fields: expect.arrayContaining(["subject", "status", "priority", "tags"]),
      previous_attributes: {},
    });
    expect(change.data).toMatchObject({ changed_fields: ["priority"], previous_attributes: { priority: "normal" } });
    expect(change.data.object).toMatchObject({ id: ticket.id, priority: "urgent" });
  });

  it("filters tickets by status, priority and lead", async () => {
    const client = await clientFor(service());
    const lead = ok(await client.POST("/v1/leads", { body: { name: "L" } }));
    const a = ok(await client.POST("/v1/tickets", { body: { subject: "a", lead_id: lead.id, priority: "low" } }));
    ok(await client.POST("/v1/tickets", { body: { subject: "b", status: "open" } }));
    const ids = async (filters: Parameters<typeof client.tickets.list>[0]) => {
      const out: string[] = [];
      for await (const ticket of client.tickets.list(filters)) out.push(ticket.id);
      return out;
    };
    expect(await ids({ lead_id: lead.id })).toEqual([a.id]);
    expect(await ids({ priority: "low" })).toEqual([a.id]);
    expect(await ids({ status: "open" })).toHaveLength(1);
  });
});
