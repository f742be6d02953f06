/** The rules of a lead write and its wire shape, without a database. */
import { describe, expect, it } from "vitest";
import { toLead, toValues } from "./leads.service.ts";
import type { LeadRow } from "./leads.store.ts";

describe("toValues", () => {
  it("de-duplicates tags, keeping the first occurrence's order", () => {
    expect(toValues({ tags: ["vip", "trial", "vip", "b2b", "trial"] })).toEqual({ tags: ["vip", "trial", "b2b"] });
  });

  it("stores custom_attributes as JSON text", () => {
    const custom_attributes = { plan: "pro", seats: 12, flags: { beta: true }, tags: ["x"] };
    const values = toValues({ custom_attributes });
    expect(typeof values.custom_attributes).toBe("string");
    expect(JSON.parse(values.custom_attributes ?? "")).toEqual(custom_attributes);
  });

  it("passes the other fields as they are, nulls included (null clears a field)", () => {
    expect(toValues({ email: "ada@example.com", phone: null, name: "Ada", status: "qualified" })).toEqual({
      email: "ada@example.com",
      phone: null,
      name: "Ada",
      status: "qualified",
    });
  });

  it("sets neither tags nor custom_attributes when the patch leaves them out", () => {
    expect(toValues({ name: "Ada" })).toEqual({ name: "Ada" });
  });
});

describe("toLead", () => {
  it("maps a row to the wire shape (its timestamps are read as the wire's text)", () => {
    const row: LeadRow = {
      id: "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
      workspace_id: "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
      email: "ada@example.com",
      phone: null,
      name: "Ada Lovelace",
      company: null,
      status: "new",
      source: "web",
      tags: ["vip"],
      custom_attributes: { plan: "pro" },
      external_id: null,
      created_at: "2026-11-01T09:30:00.000Z",
      updated_at: "2026-11-01T10:00:00.000Z",
      version: 1,
    };
    expect(toLead(row)).toEqual({
      id: row.id,
      object: "lead",
      livemode: true,
      email: "ada@example.com",
      phone: null,
      name: "Ada Lovelace",
      company: null,
      status: "new",
      source: "web",
      tags: ["vip"],
      custom_attributes: { plan: "pro" },
      external_id: null,
      created_at: "2026-11-01T09:30:00.000Z",
      updated_at: "2026-11-01T10:00:00.000Z",
      version: 1,
    });
    expect(toLead({ ...row, workspace_id: `${row.workspace_id}_test` }).livemode).toBe(false);
  });
});
