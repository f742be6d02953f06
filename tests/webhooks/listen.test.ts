/**
 * `npx @service/sdk listen` as an integrator runs it: the built command in its own process, an API key and the
 * service's address in its environment, and a plain local receiver that checks every forward with
 * `@service/webhook-verifier`. No inbound network reaches the service; the command only reads the stream.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { verifyWebhook } from "@service/webhook-verifier";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });
const CLI = new URL("../../sdk/dist/cli.js", import.meta.url).pathname;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

interface Received {
  id: string;
  type: string;
  object: string;
  at: number;
}

/** A receiver that verifies each forward and answers 204, or 400 with the reason. */
async function startReceiver(): Promise<{ url: string; received: Received[]; refused: string[]; server: Server }> {
  const received: Received[] = [];
  const refused: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook({ payload: Buffer.concat(chunks), headers: req.headers, secret: SECRET });
      received.push({ id: event.id, type: event.type, object: event.data.object.id, at: Date.now() });
      res.writeHead(204).end();
    } catch (error) {
      refused.push(String(error));
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, received, refused, server };
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** Starts the command; resolves once it says it is forwarding. */
async function startListen(key: string, forwardTo: string, state: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [CLI, "listen", "--forward-to", forwardTo, "--secret", SECRET, "--state", state],
    {
      env: { ...process.env, SERVICE_API_KEY: key, SERVICE_BASE_URL: service().url },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  running.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  await new Promise<void>((resolve, reject) => {
    lines.once("line", (line) => (line.startsWith("Forwarding") ? resolve() : reject(new Error(line))));
    child.once("exit", (code) => reject(new Error(`listen exited with ${code}`)));
  });
  return child;
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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
    const receiver = await startReceiver();
    const state = join(mkdtempSync(join(tmpdir(), "listen-")), "position.json");
    await startListen(key, receiver.url, state);
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
    receiver.server.close();
  });

  it("forwards exactly the events that happened while it was killed, after its restart", async () => {
    const receiver = await startReceiver();
    const state = join(mkdtempSync(join(tmpdir(), "listen-")), "position.json");
    const first = await startListen(key, receiver.url, state);
    expect((await createLead("before")).status).toBe(201);
    await until(() => receiver.received.length === 1, 10_000);
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));

    const missed: string[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await createLead(`while down ${i}`);
      expect(response.status).toBe(201);
      missed.push(((await response.json()) as { id: string }).id);
    }
    await startListen(key, receiver.url, state);
    await until(() => receiver.received.length === 51, 20_000);
    // Nothing more comes: no repeat of the one before, none twice.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(51);
    expect(new Set(receiver.received.map((event) => event.id)).size).toBe(51);
    // In the order they happened.
    expect(receiver.received.slice(1).map((event) => event.object)).toEqual(missed);
    expect(receiver.refused).toEqual([]);
    receiver.server.close();
  });
});
