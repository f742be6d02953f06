/** The workspace's wire shape, without a database. */
import { describe, expect, it } from "vitest";
import { toWorkspace } from "./workspaces.service.ts";

describe("toWorkspace", () => {
  it("answers id, name and creation time as ISO text", () => {
    const row = {
      id: "ws_01JD3Z7E1B2C3D4E5F6G7H8J9K",
      name: "Acme",
      created_at: new Date("2026-11-01T09:30:00.000Z"),
    };
    expect(toWorkspace(row)).toEqual({
      id: "ws_01JD3Z7E1B2C3D4E5F6G7H8J9K",
      object: "workspace",
      name: "Acme",
      created_at: "2026-11-01T09:30:00.000Z",
    });
  });
});
