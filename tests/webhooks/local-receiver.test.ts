/**
 * `npm run receiver` (scripts/receiver.ts), as a newcomer uses it: it makes its own CA (no openssl), prints the line
 * that starts the service trusting it, verifies each delivery with the published verifier and prints the verdict.
 * Run as a child process, as npm runs it; the last test starts the built service with the printed line and sees its
 * delivery verified.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@service/sdk";
import { sign } from "@service/webhook-verifier";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { bareEnv, runServer } from "../helpers/process.ts";
import { ALL_SCOPES, ok } from "../helpers/sdk.ts";

const dir = mkdtempSync(join(tmpdir(), "receiver-"));
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const START_LINE = /^ {3}(NODE_EXTRA_CA_CERTS=\S+ WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start)$/m;

interface RunningReceiver {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output(): string;
  /** Resolves with the first line of output (from `from` on) that matches. */
  line(pattern: RegExp, from?: number): Promise<string>;
  paste(text: string): void;
  stop(): Promise<{ code: number | null; stderr: string }>;
}

async function startReceiver(...args: string[]): Promise<RunningReceiver> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/receiver.ts", "--dir", dir, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const line = async (pattern: RegExp, from = 0) => {
    for (let i = 0; i < 600; i++) {
      const found = stdout
        .slice(from)
        .split("\n")
        .find((text) => pattern.test(text));
      if (found !== undefined) return found;
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no line matching ${pattern}; stdout:\n${stdout}\nstderr:\n${stderr}`);
  };
  const url = /on (https:\/\/\S+)$/.exec(await line(/^Local webhook receiver on https:/))?.[1] ?? "";
  return {
    child,
    url,
    output: () => stdout,
    line,
    paste: (text) => child.stdin.write(`${text}\n`),
    async stop() {
      const exited = once(child, "exit");
      // Ctrl-C in a terminal: SIGINT.
      child.kill("SIGINT");
      const [code] = (await exited) as [number | null];
      return { code, stderr };
    },
  };
}

/** POSTs a delivery as the service does, trusting only the receiver's CA. */
async function deliver(url: string, body: string, headers: Record<string, string>) {
  const ca = readFileSync(join(dir, "ca.pem"));
  return await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    const req = request(url, { method: "POST", ca, headers: { "content-type": "application/json", ...headers } });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] });
    });
    req.on("error", reject);
    req.end(body);
  });
}

function event(id: string) {
  return JSON.stringify({
    id,
    type: "lead.captured",
    timestamp: new Date().toISOString(),
    api_version: "1.0",
    workspace_id: "ws_01JD3Z7H1B2C3D4E5F6G7H8J9K",
    data: { object: { id: "lead_01JD3Z7H1B2C3D4E5F6G7H8J9K", object: "lead" } },
  });
}

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run receiver", () => {
  it("makes a CA, prints the line that starts the service trusting it, and exits 0 quietly on Ctrl-C", async () => {
    const receiver = await startReceiver("--port", "0");
    const start = START_LINE.exec(receiver.output())?.[1];
    expect(start).toBe(`NODE_EXTRA_CA_CERTS=${join(dir, "ca.pem")} WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start`);
    expect(receiver.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    expect(receiver.output()).toContain(`certificate authority: ${join(dir, "ca.pem")} (new)`);
    expect(receiver.output()).toContain("Paste its signing secret (whsec_…) here");
    const ca = new X509Certificate(readFileSync(join(dir, "ca.pem")));
    expect(ca.ca).toBe(true);
    // The receiver's certificate chains to that CA (the request trusts nothing else), for 127.0.0.1.
    expect((await deliver(receiver.url, "{}", {})).status).toBe(503);
    expect(await receiver.stop()).toEqual({ code: 0, stderr: "" });
  });

  it("verifies a delivery signed with the pasted secret and refuses a tampered one, printing type, id and verdict", async () => {
    const caBefore = readFileSync(join(dir, "ca.pem"), "utf8");
    const receiver = await startReceiver("--port", "0");
    expect(receiver.output(), "a restart keeps the CA the service trusts").toContain("(kept from the last start:");
    expect(readFileSync(join(dir, "ca.pem"), "utf8")).toBe(caBefore);

    const body = event("evt_01JD3Z7H1B2C3D4E5F6G7H8J9A");
    const headers = {
      ...(await sign({ payload: body, secret: SECRET, id: "evt_01JD3Z7H1B2C3D4E5F6G7H8J9A" })),
      "x-service-event": "lead.captured",
      "x-service-delivery": "dlv_01JD3Z7H1B2C3D4E5F6G7H8J9A",
    };

    // Before the secret is pasted: not verified, and answered so that the service retries.
    expect(await deliver(receiver.url, body, headers)).toEqual({ status: 503, retryAfter: "5" });
    await receiver.line(/waiting {3}lead\.captured {2}evt_01JD3Z7H1B2C3D4E5F6G7H8J9A .*no signing secret yet/);

    receiver.paste("whsec_not-base64!");
    await receiver.line(/^That is not a signing secret/);
    receiver.paste(SECRET);
    await receiver.line(/^Verifying with whsec_/);

    const from = receiver.output().length;
    expect((await deliver(receiver.url, body, headers)).status).toBe(204);
    expect(await receiver.line(/ verified /, from)).toMatch(
      /^\d\d:\d\d:\d\d {2}verified {2}lead\.captured {2}evt_01JD3Z7H1B2C3D4E5F6G7H8J9A {2}delivery dlv_01JD3Z7H1B2C3D4E5F6G7H8J9A$/,
    );

    const tampered = body.replace('"object":"lead"', '"object":"leak"');
    expect((await deliver(receiver.url, tampered, headers)).status).toBe(400);
    expect(await receiver.line(/ refused /, from)).toMatch(
      /refused {3}lead\.captured {2}evt_01JD3Z7H1B2C3D4E5F6G7H8J9A {2}delivery dlv_\w+ {2}no_matching_signature: /,
    );
    expect(await receiver.stop()).toEqual({ code: 0, stderr: "" });
  });

  it("shows a delivery of the built service, started with the printed line, as verified", async () => {
    const receiver = await startReceiver("--port", "0");
    const start = START_LINE.exec(receiver.output())?.[1] ?? "";
    // The settings of the printed line, as a shell would pass them to `npm start`.
    const settings = Object.fromEntries(
      start
        .split(" ")
        .filter((word) => word.includes("="))
        .map((word) => word.split("=") as [string, string]),
    );
    expect(Object.keys(settings)).toEqual(["NODE_EXTRA_CA_CERTS", "WEBHOOK_ALLOW_PRIVATE_NETWORKS"]);
    const database = await createTestDatabase();
    const server = await runServer([], bareEnv({ PORT: "0", DATABASE_URL: database.url, ...settings }));
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on("error", () => undefined);
    try {
      const workspace = await createWorkspace(pool, { name: "First hour", ownerEmail: "first.hour@example.com" });
      const { key } = await createApiKey(pool, {
        workspaceId: workspace.workspace_id,
        name: "first",
        scopes: ALL_SCOPES,
      });
      const client = createClient({ apiKey: key, baseUrl: server.url });
      const webhook = ok(await client.POST("/v1/webhooks", { body: { url: receiver.url, events: ["lead.captured"] } }));
      receiver.paste(webhook.secret);
      await receiver.line(/^Verifying with whsec_/);

      const from = receiver.output().length;
      ok(await client.POST("/v1/leads", { body: { email: "ada@example.com" } }));
      const [captured] = ok(await client.GET("/v1/events", { params: { query: { type: "lead.captured" } } })).data;
      expect(await receiver.line(/ verified /, from)).toMatch(
        new RegExp(`verified {2}lead\\.captured {2}${captured?.id} {2}delivery dlv_\\w+$`),
      );
    } finally {
      await pool.end();
      await server.stop();
      await database.drop();
      expect(await receiver.stop()).toEqual({ code: 0, stderr: "" });
    }
  }, 180_000);
});
