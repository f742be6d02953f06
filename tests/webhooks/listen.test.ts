/**
 * `npx @service/sdk listen` as an integrator runs it: the built command in its own process, an API key and the
 * service's address in its environment, and a plain local receiver that checks every forward with
 * `@service/webhook-verifier`. No inbound network reaches the service; the command only reads the stream.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { type Received, startListen, startVerifyingReceiver, until } from "../helpers/listen.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });
const running: ChildProcess[] = [];
/** What the commands printed, shown when a test fails. */
const output: string[] = [];
afterEach((context) => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
  if (context.task.result?.state === "fail") console.log(output.join("\n"));
  output.length = 0;
});

async function listen(key: string, forwardTo: string, state: string): Promise<ChildProcess> {
  const child = await startListen({ key, baseUrl: service().url, forwardTo, state, output });
  running.push(child);
  return child;
}

describe("npx @service/sdk listen", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await workspaceWithKey(service(), ["events:read", "leads:write", "leads:read"]));
  });

  const createLead = (name: string) =>
    service().fetch("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });

  it("forwards a new lead's event, verified by @service/webhook-verifier, within 2 s", async () => {
    const receiver = await startVerifyingReceiver();
    const state = join(mkdtempSync(join(tmpdir(), "listen-")), "position.json");
    await listen(key, receiver.url, state);
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      expect((await createLead(`listen ${i}`)).status).toBe(201);
      await until(() => receiver.received.length === i + 1, 10_000);
      latencies.push((receiver.received[i] as Received).at - started);
    }
    latencies.sort((a, b) => a - b);
    expect(latencies[Math.ceil(latencies.length * 0.95) - 1]).toBeLessThan(2_000);
    expect(receiver.refused).toEqual([]);
    expect(receiver.received.every((event) => event.type === "lead.captured")).toBe(true);
    expect(JSON.parse(readFileSync(state, "utf8"))).toMatchObject({ base_url: service().url });
    receiver.close();
  });

  it("forwards exactly the events that happened while it was killed, after its restart", async () => {
    const receiver = await startVerifyingReceiver();
    const state = join(mkdtempSync(join(tmpdir(), "listen-")), "position.json");
    const first = await listen(key, receiver.url, state);
    const position = () => (JSON.parse(readFileSync(state, "utf8")) as { after_sequence: number }).after_sequence;
    const start = position();
    expect((await createLead("before")).status).toBe(201);
    // Killed while it waits, once its position says it forwarded the first (a kill between a forward's answer and the
    // position's write would send that one again, with the same webhook-id).
    await until(() => receiver.received.length === 1 && position() > start, 10_000);
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));

    const missed: string[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await createLead(`while down ${i}`);
      expect(response.status).toBe(201);
      missed.push(((await response.json()) as { id: string }).id);
    }
    await listen(key, receiver.url, state);
    await until(() => receiver.received.length === 51, 20_000);
    // Nothing more comes: no repeat of the one before, none twice.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(51);
    expect(new Set(receiver.received.map((event) => event.id)).size).toBe(51);
    // In the order they happened.
    expect(receiver.received.slice(1).map((event) => event.object)).toEqual(missed);
    expect(receiver.refused).toEqual([]);
    receiver.close();
  });
});
