/**
 * `listen` against a stub of the change stream and a stub receiver (real node:http servers on port 0): what it keeps
 * across a restart, what it does with an event the receiver does not accept, and how it follows a reset test feed.
 */
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newSecret, sign } from "./forward.js";
import { type Listening, type ListenOptions, listen } from "./listen.js";
import { json, problem, type SeenRequest, startServer, type TestServer } from "./test-server.js";

const TEST_KEY = "sk_test_listen";
const RESET_AT = "2026-11-02T08:00:00Z";

interface Feed {
  events: ReturnType<typeof event>[];
  restartedAt: string | null;
}

function event(sequence: number, world = "a") {
  return {
    id: `evt_${world}${sequence}`,
    object: "event",
    type: "lead.captured",
    sequence,
    timestamp: "2026-11-01T09:30:00Z",
    api_version: "1.0",
    workspace_id: "ws_1",
    data: { object: { id: `lead_${world}${sequence}` } },
  };
}

/** `GET /v1/events` over `feed`, as the service answers it; a position past the newest of a reset feed is a 410. */
function feedServer(feed: Feed): Promise<TestServer> {
  return startServer(async (request, res) => {
    const page = (data: unknown[]) =>
      json(res, 200, { object: "list", data, has_more: false, next_cursor: null, restarted_at: feed.restartedAt });
    const after = request.url.searchParams.get("after_sequence");
    if (after === null) return page(feed.events.slice(-1));
    const newest = feed.events.at(-1)?.sequence ?? 0;
    if (Number(after) > newest)
      return problem(res, feed.restartedAt ? 410 : 400, feed.restartedAt ? "EVENTS_RESET" : "VALIDATION_FAILED");
    const data = feed.events.filter((item) => item.sequence > Number(after));
    // The real stream holds an empty answer up to `wait` seconds; a short hold keeps the loop from spinning.
    if (data.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    page(data);
  });
}

/** A receiver answering each forward with the next status of `statuses` (then 204). */
function receiver(statuses: number[] = []): Promise<TestServer> {
  return startServer((_request, res, index) => void res.writeHead(statuses[index] ?? 204).end());
}

/** Whether a forward's signature is `secret`'s, as a Standard Webhooks verifier checks it. */
function signedWith(secret: string, request: SeenRequest): boolean {
  const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature } = request.headers;
  return sign(secret, String(id), Number(timestamp), request.body) === signature;
}

const servers: TestServer[] = [];
const running: Listening[] = [];
afterEach(async () => {
  for (const listening of running.splice(0)) await listening.stop();
  for (const server of servers.splice(0)) await server.close();
});

async function setUp(feed: Feed, statuses: number[] = []) {
  const api = await feedServer(feed);
  const target = await receiver(statuses);
  servers.push(api, target);
  const stateFile = join(mkdtempSync(join(tmpdir(), "listen-")), "nested", "state.json");
  const lines: string[] = [];
  const start = async (options: Partial<ListenOptions> = {}) => {
    const listening = await listen({
      apiKey: TEST_KEY,
      baseUrl: api.url,
      forwardTo: `${target.url}/webhooks`,
      stateFile,
      firstRetryMs: 10,
      log: (line) => lines.push(line),
      ...options,
    });
    running.push(listening);
    return listening;
  };
  const state = () => JSON.parse(readFileSync(stateFile, "utf8")) as Record<string, unknown>;
  const forwarded = () => target.requests.map((request) => request.headers["webhook-id"]);
  return { api, target, stateFile, lines, start, state, forwarded };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("listen across a restart", () => {
  it("keeps its new secret in the state file, and signs what happened while it was down with it", async () => {
    const feed: Feed = { events: [event(1)], restartedAt: null };
    const { target, stateFile, start, state, forwarded } = await setUp(feed);
    const first = await start();
    expect(first.secretSource).toBe("new");
    expect(state()).toMatchObject({ secret: first.secret, after_sequence: 1, mode: "test", restarted_at: null });
    // It holds the secret: its owner's alone.
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    await first.stop();

    feed.events.push(event(2), event(3));
    const second = await start();
    expect(second).toMatchObject({ secret: first.secret, secretSource: "kept" });
    await until(() => forwarded().length === 2);
    expect(forwarded()).toEqual(["evt_a2", "evt_a3"]);
    expect(target.requests.every((request) => signedWith(first.secret, request))).toBe(true);
  });

  it("signs with a --secret given over the kept one, and keeps it instead", async () => {
    const { start, state } = await setUp({ events: [], restartedAt: null });
    await (await start()).stop();
    const given = newSecret();
    const listening = await start({ secret: given });
    expect(listening).toMatchObject({ secret: given, secretSource: "given" });
    expect(state().secret).toBe(given);
  });

  it("refuses a state file of the live feed for a test key", async () => {
    const { stateFile, start } = await setUp({ events: [], restartedAt: null });
    await (await start({ apiKey: "sk_live_listen" })).stop();
    await expect(start()).rejects.toThrow(`${stateFile} keeps a position in the live feed, not the test one`);
  });
});

describe("an event the receiver does not accept", () => {
  it("is tried again with backoff, one line a try, and the position stays before it until it is taken", async () => {
    const { target, lines, start, state, forwarded } = await setUp(
      { events: [event(1), event(2)], restartedAt: null },
      [400, 503],
    );
    await start({ from: 0 });
    await until(() => forwarded().length === 4);
    expect(forwarded()).toEqual(["evt_a1", "evt_a1", "evt_a1", "evt_a2"]);
    expect(lines[0]).toMatch(
      / 1 {2}lead\.captured {2}evt_a1 {2}-> 400 \(\d+ ms\): not accepted, next try in 10 ms; --skip-refused would move past it$/,
    );
    expect(lines[1]).toMatch(/evt_a1 {2}-> 503 \(\d+ ms\): not accepted, next try in 20 ms$/);
    expect(lines[2]).toMatch(/evt_a1 {2}-> 204 \(\d+ ms\)$/);
    await until(() => state().after_sequence === 2);
    expect(target.requests).toHaveLength(4);
  });

  it("is never moved past while refused: the position stays before it", async () => {
    const { start, state, forwarded } = await setUp({ events: [event(1)], restartedAt: null }, Array(50).fill(400));
    await start({ from: 0 });
    await until(() => forwarded().length >= 3);
    expect(state().after_sequence).toBe(0);
  });

  it("is skipped, saying so, with skipRefused; a receiver not ready (503) is still waited for", async () => {
    const { lines, start, state, forwarded } = await setUp(
      { events: [event(1), event(2)], restartedAt: null },
      [422, 503],
    );
    await start({ from: 0, skipRefused: true });
    await until(() => state().after_sequence === 2);
    expect(forwarded()).toEqual(["evt_a1", "evt_a2", "evt_a2"]);
    expect(lines[0]).toMatch(/evt_a1 {2}-> 422 \(\d+ ms\): refused, skipped \(--skip-refused\)$/);
    expect(lines[1]).toMatch(/evt_a2 {2}-> 503 \(\d+ ms\): not accepted, next try in/);
  });
});

describe("a reset of the test feed", () => {
  it("is seen by a page's new restarted_at: listen says so and follows again from sequence 0", async () => {
    const feed: Feed = { events: [event(1), event(2)], restartedAt: null };
    const { lines, start, state, forwarded } = await setUp(feed);
    const listening = await start();
    // POST /v1/test-data/reset, then three events of the new feed.
    Object.assign(feed, { events: [event(1, "b"), event(2, "b"), event(3, "b")], restartedAt: RESET_AT });
    await until(() => forwarded().length === 3);
    expect(forwarded()).toEqual(["evt_b1", "evt_b2", "evt_b3"]);
    expect(lines.filter((line) => line.includes("reset"))).toEqual([
      expect.stringMatching(
        /The test feed was reset \(restarted_at 2026-11-02T08:00:00Z\): following it again from sequence 0, with the same secret\.$/,
      ),
    ]);
    await until(() => state().after_sequence === 3);
    expect(state()).toMatchObject({ restarted_at: RESET_AT, secret: listening.secret });
  });

  it("is seen by a 410 EVENTS_RESET: listen says so, follows from sequence 0 and takes the new restarted_at", async () => {
    const feed: Feed = { events: [event(1), event(2), event(3)], restartedAt: null };
    const { api, lines, start, state, forwarded } = await setUp(feed);
    await start();
    Object.assign(feed, { events: [event(1, "b")], restartedAt: RESET_AT });
    await until(() => forwarded().length === 1);
    expect(forwarded()).toEqual(["evt_b1"]);
    expect(lines.filter((line) => line.includes("reset"))).toEqual([
      expect.stringContaining("The test feed was reset (410 EVENTS_RESET): following it again from sequence 0"),
    ]);
    const positions = api.requests.map((request) => request.url.searchParams.get("after_sequence"));
    expect(positions).toContain("0");
    await until(() => state().after_sequence === 1);
    expect(state().restarted_at).toBe(RESET_AT);
  });
});

describe("a state file of an earlier version (a live key's position, no secret, no restarted_at)", () => {
  it("keeps its position, adds a secret and the feed's restarted_at, and calls nothing a reset", async () => {
    const { api, stateFile, lines, start, state, forwarded } = await setUp({
      events: [event(1), event(2)],
      restartedAt: null,
    });
    mkdirSync(join(stateFile, ".."), { recursive: true });
    writeFileSync(stateFile, JSON.stringify({ base_url: api.url, after_sequence: 1 }));
    const listening = await start({ apiKey: "sk_live_listen" });
    expect(listening.secretSource).toBe("new");
    await until(() => forwarded().length === 1);
    expect(forwarded()).toEqual(["evt_a2"]);
    await until(() => state().after_sequence === 2);
    expect(state()).toEqual({
      base_url: api.url,
      mode: "live",
      after_sequence: 2,
      secret: listening.secret,
      restarted_at: null,
    });
    expect(lines.some((line) => line.includes("reset"))).toBe(false);
  });
});

describe("a position older than the events kept", () => {
  it("stops listen with EVENTS_EXPIRED rather than skip the gap", async () => {
    const api = await startServer((_request, res) => problem(res, 410, "EVENTS_EXPIRED"));
    servers.push(api);
    const stateFile = join(mkdtempSync(join(tmpdir(), "listen-")), "state.json");
    const listening = await listen({
      apiKey: TEST_KEY,
      baseUrl: api.url,
      forwardTo: "http://127.0.0.1:9/webhooks",
      stateFile,
      from: 5,
      log: () => undefined,
    });
    await expect(listening.done).rejects.toThrow("cannot go on: EVENTS_EXPIRED");
  });
});
