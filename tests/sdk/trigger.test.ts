/**
 * `npx @service/sdk trigger` as an integrator runs it (the built command in its own process, the key and the service's
 * address in its environment) against the real service, with `listen` forwarding to a receiver that verifies every
 * delivery: the receiver's whole test loop, as the README has a user run it in two terminals.
 *
 * Keys are made as a user makes them, on the console's keys page (`POST /api/workspace/api-keys` with the console's
 * `Service-Mode: test`).
 */
import { type ChildProcess, execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@service/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { json, registerAndVerify, type SignedIn, signIn, uniqueEmail, workspaceWithKey } from "../helpers/accounts.ts";
import { startListen, startVerifyingReceiver, until, type VerifyingReceiver } from "../helpers/listen.ts";
import { ok } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const CLI = new URL("../../sdk/dist/cli.js", import.meta.url).pathname;
const TRIGGER_SCOPES = [
  "leads:read",
  "leads:write",
  "conversations:write",
  "tickets:write",
  "attributes:write",
  "events:read",
];
/** From the end of `trigger` (which prints the event once it is in `GET /v1/events`) to the receiver's verdict. */
const TO_RECEIVER_MS = 2_000;

const service = useTestService({ TRUST_PROXY: "loopback", API_RATE_LIMIT_PER_MINUTE: "100000" });
const output: string[] = [];
const running: ChildProcess[] = [];
afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(output.join("\n"));
  output.length = 0;
});
afterAll(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** A key made on the console's keys page, in the mode its switch sends (`Service-Mode`). */
async function consoleKey(owner: SignedIn, mode: "test" | "live"): Promise<string> {
  const body = { name: `trigger ${mode}`, scopes: TRIGGER_SCOPES };
  const response = await service().fetch(
    "/api/workspace/api-keys",
    json(body, { cookie: owner.cookie, "x-csrf-token": owner.csrf, "service-mode": mode }),
  );
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { key: string }).key;
}

/** The built command, as `npx @service/sdk trigger …` runs it; never rejects. */
function runTrigger(key: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, "trigger", ...args],
      { env: { ...process.env, SERVICE_API_KEY: key, SERVICE_BASE_URL: service().url }, timeout: 30_000 },
      (error, stdout, stderr) => {
        output.push(`$ trigger ${args.join(" ")}`, stdout, stderr);
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe("npx @service/sdk trigger with a live key", () => {
  it("refuses it, writing nothing", async () => {
    const { key } = await workspaceWithKey(service(), TRIGGER_SCOPES);
    expect(key).toMatch(/^sk_live_/);
    const refused = await runTrigger(key, ["lead.captured"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("trigger needs a test key (sk_test_…)");
    const live = createClient({ apiKey: key, baseUrl: service().url });
    expect(ok(await live.GET("/v1/events")).data).toEqual([]);
    expect(ok(await live.GET("/v1/leads")).data).toEqual([]);
  });
});

describe("npx @service/sdk trigger with a test key", () => {
  let testKey: string;
  let liveKey: string;
  beforeAll(async () => {
    const email = uniqueEmail("trigger");
    await registerAndVerify(service(), email);
    const owner = await signIn(service(), email);
    testKey = await consoleKey(owner, "test");
    liveKey = await consoleKey(owner, "live");
  });

  it("makes every type of GET /v1/event-types happen in the test world, each at the receiver within 2 s", async () => {
    expect(testKey).toMatch(/^sk_test_/);
    const client = createClient({ apiKey: testKey, baseUrl: service().url });
    const types = ok(await client.GET("/v1/event-types")).data.map((info) => info.type);
    expect(types.length).toBeGreaterThan(0);

    const receiver: VerifyingReceiver = await startVerifyingReceiver();
    const state = join(mkdtempSync(join(tmpdir(), "trigger-")), "state.json");
    running.push(await startListen({ key: testKey, baseUrl: service().url, forwardTo: receiver.url, state, output }));

    const made: { type: string; id: string; sequence: number }[] = [];
    for (const type of types) {
      const run = await runTrigger(testKey, [type]);
      expect(run.code, run.stderr).toBe(0);
      const last = run.stdout.trim().split("\n").at(-1) ?? "";
      const found = new RegExp(`^${type.replace(".", "\\.")} (evt_\\w+) \\(sequence (\\d+)\\)$`).exec(last);
      expect(found, run.stdout).not.toBeNull();
      const id = found?.[1] as string;
      made.push({ type, id, sequence: Number(found?.[2]) });
      await until(() => receiver.received.some((event) => event.id === id), TO_RECEIVER_MS);
    }
    expect(receiver.refused).toEqual([]);
    expect(made.map((event) => event.type)).toEqual(types);
    // In the order they were made, each in the test world.
    expect(made.map((event) => event.sequence)).toEqual([...made.map((event) => event.sequence)].sort((a, b) => a - b));
    for (const { id } of made) {
      const event = ok(await client.GET("/v1/events/{event_id}", { params: { path: { event_id: id } } }));
      expect((event as { livemode?: boolean }).livemode).toBe(false);
    }
    // None of it reached the live world of the same workspace.
    const live = createClient({ apiKey: liveKey, baseUrl: service().url });
    expect(ok(await live.GET("/v1/events")).data).toEqual([]);
    receiver.close();
  });

  it("lists the valid types for one the service does not know, and with --list", async () => {
    const unknown = await runTrigger(testKey, ["lead.created"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('Unknown event type "lead.created". The service\'s event types:');
    const listed = await runTrigger(testKey, ["--list"]);
    expect(listed.code, listed.stderr).toBe(0);
    const client = createClient({ apiKey: testKey, baseUrl: service().url });
    for (const { type } of ok(await client.GET("/v1/event-types")).data) {
      expect(unknown.stderr).toContain(`\n  ${type}`);
      expect(listed.stdout).toMatch(new RegExp(`^${type.replace(".", "\\.")} `, "m"));
    }
  });
});
