import { describe, expect, it } from "vitest";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

describe("leads through the SDK", () => {
  it("creates, gets, updates, lists and deletes a lead", async () => {
    const client = await clientFor(service());
    const created = ok(
      await client.POST("/v1/leads", {
        body: {
          email: "Ada@Example.com",
          name: "Ada",
          tags: ["trial", "trial", "vip"],
          custom_attributes: { plan: "pro" },
        },
      }),
    );
    expect(created).toMatchObject({ object: "lead", email: "Ada@Example.com", status: "new", tags: ["trial", "vip"] });
    expect(created.id).toMatch(/^lead_[0-9A-HJKMNP-TV-Z]{26}$/);

    const fetched = ok(await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: created.id } } }));
    expect(fetched).toEqual(created);

    const updated = ok(
      await client.PATCH("/v1/leads/{lead_id}", {
        params: { path: { lead_id: created.id } },
        body: { status: "qualified", company: "Analytical Engines", phone: null },
      }),
    );
    expect(updated).toMatchObject({ status: "qualified", company: "Analytical Engines", name: "Ada", phone: null });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    const all = [];
    for await (const lead of client.leads.list()) all.push(lead.id);
    expect(all).toEqual([created.id]);

    const deleted = await client.DELETE("/v1/leads/{lead_id}", { params: { path: { lead_id: created.id } } });
    expect(deleted.response.status).toBe(204);
    const gone = await client.GET("/v1/leads/{lead_id}", { params: { path: { lead_id: created.id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ code: "LEAD_NOT_FOUND" });
  });

  it("refuses a lead with nothing to identify it, and a second lead with the same external_id", async () => {
    const client = await clientFor(service());
    const empty = await client.POST("/v1/leads", { body: { company: "Nobody Inc" } });
    expect(empty.error).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    ok(await client.POST("/v1/leads", { body: { external_id: "crm-1" } }));
    const twice = await client.POST("/v1/leads", { body: { external_id: "crm-1" } });
    expect(twice.error).toMatchObject({ status: 409, code: "EXTERNAL_ID_TAKEN" });
  });

  it("pages over 45 leads in pages of 20, each exactly once, while new leads are inserted", async () => {
    const client = await clientFor(service());
    const originals: string[] = [];
    for (let i = 0; i < 45; i++) originals.push(ok(await client.POST("/v1/leads", { body: { name: `lead ${i}` } })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ok(
        await client.GET("/v1/leads", { params: { query: { limit: 20, ...(cursor ? { cursor } : {}) } } }),
      );
      pages += 1;
      seen.push(...page.data.map((lead) => lead.id));
      // Writers keep going between pages: new leads sort before the cursor and never shift a page.
      for (let i = 0; i < 3; i++) ok(await client.POST("/v1/leads", { body: { name: `late ${pages}.${i}` } }));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...originals].reverse());
    expect(new Set(seen).size).toBe(45);
  });

  it("filters by status, e-mail (any case), external_id, created_after and updated_after", async () => {
    const client = await clientFor(service());
    const a = ok(
      await client.POST("/v1/leads", { body: { email: "a@example.com", status: "contacted", external_id: "x-1" } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cut = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const b = ok(await client.POST("/v1/leads", { body: { email: "b@example.com" } }));
    const collect = async (filters: Parameters<typeof client.leads.list>[0]) => {
      const ids: string[] = [];
      for await (const lead of client.leads.list(filters)) ids.push(lead.id);
      return ids;
    };
    expect(await collect({ status: "contacted" })).toEqual([a.id]);
    expect(await collect({ email: "A@EXAMPLE.COM" })).toEqual([a.id]);
    expect(await collect({ external_id: "x-1" })).toEqual([a.id]);
    expect(await collect({ created_after: cut })).toEqual([b.id]);
    ok(
      await client.PATCH("/v1/leads/{lead_id}", { params: { path: { lead_id: a.id } }, body: { status: "qualified" } }),
    );
    expect(await collect({ updated_after: cut })).toEqual([b.id, a.id]);
    expect(await collect({ status: "qualified", email: "b@example.com" })).toEqual([]);
  });

  it("records lead.captured with the lead, in the event list", async () => {
    const client = await clientFor(service());
    const lead = ok(await client.POST("/v1/leads", { body: { email: "events@example.com" } }));
    const events = [];
    for await (const event of client.events.list({ type: "lead.captured" })) events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      object: "event",
      type: "lead.captured",
      api_version: "1.0",
      workspace_id: client.workspaceId,
      data: { object: lead },
    });
    const one = ok(
      await client.GET("/v1/events/{event_id}", { params: { path: { event_id: events[0]?.id as string } } }),
    );
    expect(one).toEqual(events[0]);
  });
});
