import { describe, expect, it } from "vitest";
import { json, registerAndVerify, signIn, uniqueEmail } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

// Private networks are refused here, as in production.
const service = useTestService({ TRUST_PROXY: "loopback", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" });

describe("webhook subscriptions: the SSRF guard", () => {
  it.each([
    ["http://hooks.example.com/x", 400, "VALIDATION_FAILED"],
    ["https://127.0.0.1/x", 422, "WEBHOOK_URL_NOT_ALLOWED"],
    ["https://[::1]:8443/x", 422, "WEBHOOK_URL_NOT_ALLOWED"],
    ["https://169.254.169.254/latest/meta-data/", 422, "WEBHOOK_URL_NOT_ALLOWED"],
    ["https://10.0.0.8/hook", 422, "WEBHOOK_URL_NOT_ALLOWED"],
    ["https://localhost:8443/hook", 422, "WEBHOOK_URL_NOT_ALLOWED"],
    ["https://user:secret@hooks.example.com/x", 422, "WEBHOOK_URL_NOT_ALLOWED"],
  ])("refuses %s", async (url, status, code) => {
    const client = await clientFor(service());
    const answer = await client.POST("/v1/webhooks", { body: { url, events: ["lead.captured"] } });
    expect(answer.response.status).toBe(status);
    expect(answer.error).toMatchObject({ code });
    const list = ok(await client.GET("/v1/webhooks"));
    expect(list.data).toEqual([]);
  });

  it("refuses a change of URL to a private address", async () => {
    const client = await clientFor(service());
    // 93.184.216.34 is a public address literal: accepted without any DNS look-up.
    const created = ok(
      await client.POST("/v1/webhooks", { body: { url: "https://93.184.216.34/hook", events: ["lead.captured"] } }),
    );
    const moved = await client.PATCH("/v1/webhooks/{webhook_id}", {
      params: { path: { webhook_id: created.id } },
      body: { url: "https://192.168.1.10/hook" },
    });
    expect(moved.error).toMatchObject({ code: "WEBHOOK_URL_NOT_ALLOWED" });
  });
});

describe("webhook subscriptions: management", () => {
  it("creates, lists, updates, disables, re-enables and deletes, showing the secret only on creation", async () => {
    const client = await clientFor(service());
    const created = ok(
      await client.POST("/v1/webhooks", {
        body: { url: "https://93.184.216.34/hook", events: ["lead.captured", "ticket.updated"], description: "CRM" },
      }),
    );
    expect(created).toMatchObject({
      object: "webhook",
      enabled: true,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_/),
    });
    const fetched = ok(await client.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: created.id } } }));
    expect(fetched).not.toHaveProperty("secret");
    const disabled = ok(
      await client.PATCH("/v1/webhooks/{webhook_id}", {
        params: { path: { webhook_id: created.id } },
        body: { enabled: false },
      }),
    );
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: "manual" });
    const enabled = ok(
      await client.PATCH("/v1/webhooks/{webhook_id}", {
        params: { path: { webhook_id: created.id } },
        body: { enabled: true },
      }),
    );
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
    const ids = [];
    for await (const webhook of client.webhooks.list()) ids.push(webhook.id);
    expect(ids).toEqual([created.id]);
    expect(
      (await client.DELETE("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: created.id } } })).response
        .status,
    ).toBe(204);
    expect(
      (await client.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: created.id } } })).error,
    ).toMatchObject({
      code: "WEBHOOK_NOT_FOUND",
    });
  });

  it("requires webhooks:write to subscribe and keeps subscriptions to their workspace", async () => {
    const reader = await clientFor(service(), ["webhooks:read"]);
    expect(
      (await reader.POST("/v1/webhooks", { body: { url: "https://93.184.216.34/h", events: ["lead.captured"] } }))
        .error,
    ).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
    });
    const owner = await clientFor(service());
    const created = ok(
      await owner.POST("/v1/webhooks", { body: { url: "https://93.184.216.34/h", events: ["lead.captured"] } }),
    );
    expect(
      (await reader.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: created.id } } })).response.status,
    ).toBe(404);
  });

  it("serves the same subscriptions in the developer settings, with the session and CSRF token", async () => {
    const email = uniqueEmail("settings");
    await registerAndVerify(service(), email);
    const me = await signIn(service(), email);
    const body = { url: "https://93.184.216.34/settings", events: ["conversation.created"] };
    await expectProblem(
      await service().fetch("/api/workspace/webhooks", {
        ...json(body),
        headers: { "content-type": "application/json", cookie: me.cookie },
      }),
      403,
      "CSRF_TOKEN_INVALID",
    );
    const created = await service().fetch(
      "/api/workspace/webhooks",
      json(body, { cookie: me.cookie, "x-csrf-token": me.csrf }),
    );
    expect(created.status).toBe(201);
    const list = await (await service().fetch("/api/workspace/webhooks", { headers: { cookie: me.cookie } })).json();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ url: body.url, events: body.events });
  });
  it("answers every subscription operation in the developer settings as /v1 does, with the session's CSRF token", async () => {
    const email = uniqueEmail("settings-all");
    await registerAndVerify(service(), email);
    const me = await signIn(service(), email);
    const read = { headers: { cookie: me.cookie } };
    const write = (body: unknown, method = "POST") =>
      json(body, { cookie: me.cookie, "x-csrf-token": me.csrf }, method);
    const call = async (path: string, init: RequestInit, status: number) => {
      const response = await service().fetch(path, init);
      expect(response.status, `${init.method ?? "GET"} ${path}`).toBe(status);
      return response.status === 204 ? undefined : await response.json();
    };
    const created = await call(
      "/api/workspace/webhooks",
      write({ url: "https://93.184.216.34/all", events: ["lead.captured"] }),
      201,
    );
    const id = created.id as string;
    expect(await call(`/api/workspace/webhooks/${id}`, read, 200)).toMatchObject({
      id,
      url: "https://93.184.216.34/all",
    });
    expect(
      await call(`/api/workspace/webhooks/${id}`, write({ description: "every operation" }, "PATCH"), 200),
    ).toMatchObject({
      description: "every operation",
    });
    const test = await call(`/api/workspace/webhooks/${id}/test`, write({ event_type: "lead.captured" }), 202);
    expect(test).toMatchObject({ object: "delivery", webhook_id: id });
    const deliveries = await call(`/api/workspace/webhooks/${id}/deliveries`, read, 200);
    expect(deliveries.data.map((delivery: { id: string }) => delivery.id)).toContain(test.id);
    expect(await call(`/api/workspace/webhooks/${id}/deliveries/${test.id}`, read, 200)).toMatchObject({
      id: test.id,
      webhook_id: id,
    });
    expect(await call(`/api/workspace/webhooks/${id}/deliveries/${test.id}/redeliver`, write({}), 202)).toMatchObject({
      object: "delivery",
    });
    expect(await call(`/api/workspace/webhooks/${id}/stats`, read, 200)).toMatchObject({ object: "webhook_stats" });
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(await call(`/api/workspace/webhooks/${id}/recover`, write({ since }), 202)).toMatchObject({
      object: "webhook_recovery",
    });
    const rotated = await call(`/api/workspace/webhooks/${id}/rotate-secret`, write({}), 200);
    expect(rotated.secret).toMatch(/^whsec_/);
    await call(`/api/workspace/webhooks/${id}`, { ...write({}, "DELETE"), body: null }, 204);
    await expectProblem(await service().fetch(`/api/workspace/webhooks/${id}`, read), 404, "WEBHOOK_NOT_FOUND");
  });
});
