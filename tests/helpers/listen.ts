/**
 * `npx @service/sdk listen` as an integrator runs it (the built command in its own process, the key and the service's
 * address in its environment), and a plain local receiver that checks every forward with `@service/webhook-verifier`.
 * For tests/webhooks/listen.test.ts and tests/bench/change-stream.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { verifyWebhook } from "@service/webhook-verifier";

const CLI = new URL("../../sdk/dist/cli.js", import.meta.url).pathname;
const LISTEN_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

export interface Received {
  id: string;
  type: string;
  object: string;
  at: number;
}

export interface VerifyingReceiver {
  url: string;
  received: Received[];
  refused: string[];
  close(): void;
}

/** A receiver that verifies each forward with LISTEN_SECRET and answers 204, or 400 with the reason. */
export async function startVerifyingReceiver(): Promise<VerifyingReceiver> {
  const received: Received[] = [];
  const refused: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook({
        payload: Buffer.concat(chunks),
        headers: req.headers,
        secret: LISTEN_SECRET,
      });
      received.push({ id: event.id, type: event.type, object: event.data.object.id, at: Date.now() });
      res.writeHead(204).end();
    } catch (error) {
      refused.push(String(error));
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, received, refused, close: () => server.close() };
}

/** Starts the command; resolves once it says it is forwarding. Its lines go to `output`. */
export async function startListen(options: {
  key: string;
  baseUrl: string;
  forwardTo: string;
  state: string;
  output: string[];
}): Promise<ChildProcess> {
  const args = ["listen", "--forward-to", options.forwardTo, "--secret", LISTEN_SECRET, "--state", options.state];
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SERVICE_API_KEY: options.key, SERVICE_BASE_URL: options.baseUrl },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on("line", (line) => options.output.push(line));
  await new Promise<void>((resolve, reject) => {
    lines.once("line", (line) => (line.startsWith("Forwarding") ? resolve() : reject(new Error(line))));
    child.once("exit", (code) => reject(new Error(`listen exited with ${code}`)));
  });
  return child;
}

/** Resolves once `check()` holds, polling every 20 ms; rejects after `ms`. */
export async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
