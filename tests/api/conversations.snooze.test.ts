/**
 * A snooze ends at `snoozed_until` (spec/models/conversations.tsp: "until `snoozed_until`, then open again"): a
 * pg-boss job stores it as `open` and records the change. An update that comes after `snoozed_until` but before the
 * job starts from `open` (`expireSnooze` moves `snoozed_until` into the past in the database, so that test waits for
 * no clock).
 */
import { describe, expect, it } from "vitest";
import { clientFor, ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

type Client = Awaited<ReturnType<typeof clientFor>>;

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function snoozedConversation(client: Client, until = inAnHour()): Promise<string> {
  const { id } = ok(await client.POST("/v1/conversations", { body: {} }));
  ok(
    await client.PATCH("/v1/conversations/{conversation_id}", {
      params: { path: { conversation_id: id } },
      body: { state: "snoozed", snoozed_until: until },
    }),
  );
  return id;
}

/** Ends the snooze a second ago, as the clock would have, without touching anything else of the row. */
async function expireSnooze(id: string): Promise<void> {
  const { rowCount } = await service().service.db.pool.query(
    "UPDATE conversations SET snoozed_until = now() - interval '1 second' WHERE id = $1 AND state = 'snoozed'",
    [id],
  );
  expect(rowCount).toBe(1);
}

async function storedRow(id: string) {
  const { rows } = await service().service.db.pool.query<{ state: string; snoozed_until: Date | null }>(
    "SELECT state, snoozed_until FROM conversations WHERE id = $1",
    [id],
  );
  return rows[0];
}

function getConversation(client: Client, id: string) {
  return client.GET("/v1/conversations/{conversation_id}", { params: { path: { conversation_id: id } } });
}

async function listIds(client: Client, filters: Parameters<Client["conversations"]["list"]>[0]): Promise<string[]> {
  const ids: string[] = [];
  for await (const conversation of client.conversations.list(filters)) ids.push(conversation.id);
  return ids;
}

describe("a snooze ends at snoozed_until", () => {
  it("is ended by its pg-boss job: stored as open, one more version, and one conversation.updated event", async () => {
    const client = await clientFor(service());
    const until = new Date(Date.now() + 1_500).toISOString();
    const id = await snoozedConversation(client, until);
    const before = ok(await getConversation(client, id));
    expect(before).toMatchObject({ state: "snoozed", snoozed_until: until, version: 2 });

    // The job is due at snoozed_until and polled every second: the change is written within a few seconds.
    await expect.poll(async () => (await storedRow(id))?.state, { timeout: 15_000, interval: 200 }).toBe("open");
    const after = ok(await getConversation(client, id));
    expect(after).toMatchObject({ state: "open", snoozed_until: null, version: 3 });
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(until));
    const events = ok(await client.GET("/v1/events", { params: { query: { after_sequence: 0 } } })).data;
    expect(events.map((event) => event.type)).toEqual([
      "conversation.created",
      "conversation.updated",
      "conversation.updated",
    ]);
    expect(events.at(-1)?.data).toEqual({
      object: after,
      changed_fields: ["state", "snoozed_until"],
      previous_attributes: { state: "snoozed", snoozed_until: until },
    });
  });

  it("keeps a snooze whose snoozed_until is still ahead snoozed", async () => {
    const client = await clientFor(service());
    const until = inAnHour();
    const id = await snoozedConversation(client, until);
    expect(ok(await getConversation(client, id))).toMatchObject({ state: "snoozed", snoozed_until: until });
    expect(await listIds(client, { state: "snoozed" })).toEqual([id]);
    expect(await listIds(client, { state: "open" })).toEqual([]);
  });

  it("updates an ended snooze from open: snoozes it again until a new time, then closes it", async () => {
    const client = await clientFor(service());
    const id = await snoozedConversation(client);
    const path = { params: { path: { conversation_id: id } } };
    await expireSnooze(id);

    const until = inAnHour();
    const again = ok(
      await client.PATCH("/v1/conversations/{conversation_id}", {
        ...path,
        body: { state: "snoozed", snoozed_until: until },
      }),
    );
    expect(again).toMatchObject({ state: "snoozed", snoozed_until: until });
    await expireSnooze(id);

    // Starting from open, snoozed_until without state=snoozed is refused as on any open conversation.
    const stray = await client.PATCH("/v1/conversations/{conversation_id}", {
      ...path,
      body: { snoozed_until: inAnHour() },
    });
    expect(stray.error).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });

    const closed = ok(
      await client.PATCH("/v1/conversations/{conversation_id}", { ...path, body: { state: "closed" } }),
    );
    expect(closed).toMatchObject({ state: "closed", snoozed_until: null });
    expect(await storedRow(id)).toEqual({ state: "closed", snoozed_until: null });
  });

  it("stores the reopening when an ended snooze is written for another reason", async () => {
    const client = await clientFor(service());
    const id = await snoozedConversation(client);
    await expireSnooze(id);

    const renamed = ok(
      await client.PATCH("/v1/conversations/{conversation_id}", {
        params: { path: { conversation_id: id } },
        body: { subject: "Renamed" },
      }),
    );
    expect(renamed).toMatchObject({ subject: "Renamed", state: "open", snoozed_until: null });
    expect(await storedRow(id)).toEqual({ state: "open", snoozed_until: null });
  });
});
