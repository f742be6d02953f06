/** The event envelope, without a database: what `/v1/events` lists and what webhooks sign and deliver. */
import { describe, expect, it } from "vitest";
import { toEvent } from "./events.service.ts";
import type { EventRow } from "./events.store.ts";

const ROW: EventRow = {
  id: "evt_01JD3Z7D1B2C3D4E5F6G7H8J9K",
  workspace_id: "ws_01JD3Z7E1B2C3D4E5F6G7H8J9K",
  type: "lead.captured",
  data: { object: { id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7", object: "lead" } },
  created_at: new Date("2026-11-01T09:30:00.000Z"),
  sequence: "7",
};

describe("toEvent", () => {
  it("wraps the recorded data in the versioned envelope, its time as RFC 3339 UTC", () => {
    expect(toEvent(ROW)).toEqual({
      id: ROW.id,
      object: "event",
      sequence: 7,
      type: "lead.captured",
      timestamp: "2026-11-01T09:30:00.000Z",
      api_version: "1.0",
      workspace_id: ROW.workspace_id,
      livemode: true,
      data: ROW.data,
    });
  });

  it("says test mode's events are not live, with the workspace's own id (not its test scope's)", () => {
    const event = toEvent({ ...ROW, workspace_id: `${ROW.workspace_id}_test` });
    expect([event.livemode, event.workspace_id]).toEqual([false, ROW.workspace_id]);
  });

  it.each<EventRow["type"]>(["lead.captured", "conversation.created", "ticket.updated"])(
    "types the envelope by the recorded type (%s), which tells the union's data apart",
    (type) => {
      expect(toEvent({ ...ROW, type }).type).toBe(type);
    },
  );
});
