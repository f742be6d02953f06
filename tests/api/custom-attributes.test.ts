/**
 * The customer's own fields on every object (issue 43): leads had `custom_attributes`; conversations and tickets
 * have them too, kept as given, replaced whole by a change, and named in the change's event.
 */
import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService();

async function caller() {
  const { key } = await workspaceWithKey(service(), ALL_SCOPES);
  return async (method: string, path: string, body?: unknown) => {
    const response = await service().fetch(path, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

describe("custom_attributes on conversations and tickets", () => {
  it.each([
    ["conversations", { subject: "fields" }, "conversation.updated"],
    ["tickets", { subject: "fields" }, "ticket.updated"],
  ])("%s keep them as given, replace them whole, and name them in the event", async (path, create, type) => {
    const call = await caller();
    const plain = await call("POST", `/v1/${path}`, create);
    expect(plain.body.custom_attributes).toEqual({});
    const made = await call("POST", `/v1/${path}`, { ...create, custom_attributes: { plan: "pro", seats: 12 } });
    expect(made.status).toBe(201);
    expect(made.body.custom_attributes).toEqual({ plan: "pro", seats: 12 });
    expect((await call("GET", `/v1/${path}/${made.body.id}`)).body.custom_attributes).toEqual({
      plan: "pro",
      seats: 12,
    });

    // The same fields in another order change nothing: no new version, no event.
    const same = await call("PATCH", `/v1/${path}/${made.body.id}`, { custom_attributes: { seats: 12, plan: "pro" } });
    expect(same.body.version).toBe(made.body.version);
    const changed = await call("PATCH", `/v1/${path}/${made.body.id}`, { custom_attributes: { plan: "team" } });
    expect(changed.body).toMatchObject({ custom_attributes: { plan: "team" }, version: made.body.version + 1 });

    const events = (await call("GET", "/v1/events?limit=100")).body.data as {
      type: string;
      data: { object: { id: string }; changed_fields?: string[]; previous_attributes?: Record<string, unknown> };
    }[];
    // Newest first: the first is the last change.
    const last = events.find((event) => event.type === type && event.data.object.id === made.body.id);
    expect(last?.data.changed_fields).toEqual(["custom_attributes"]);
    expect(last?.data.previous_attributes).toEqual({ custom_attributes: { plan: "pro", seats: 12 } });

    const refused = await call("POST", `/v1/${path}`, { ...create, custom_attributes: { bad: "a\u0000b" } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe("body.custom_attributes.bad");
  });
});
