/**
 * A local HTTPS webhook receiver for development: `npm run receiver [-- --port N] [--secret whsec_…] [--dir D]`.
 *
 * It listens on 127.0.0.1 with a certificate from a CA of its own (receiver-ca.ts, kept in `.data/receiver/`),
 * prints the exact `listen` command that forwards the workspace's events to it (trusting that CA; nothing to change
 * in the service) and the line that starts the service for real webhooks instead, and checks every delivery with
 * `@service/webhook-verifier`, the published package, exactly as a subscriber would: one line per delivery with its
 * event type, event id and the verdict (verified, or refused and why).
 *
 * The endpoint's signing secret comes from `--secret` or from a line typed (pasted) while it runs; a new one is tried
 * first and the previous one still verifies (a rotation signs with both). Without `--port`, it takes the port it had
 * last time when that is free, so that the registered URL keeps working across restarts.
 */
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { sign, verifyWebhook, WebhookVerificationError } from "@service/webhook-verifier";
import { loadCertificates } from "./receiver-ca.ts";

const USAGE = `usage: npm run receiver [-- --port N] [--secret whsec_…] [--dir .data/receiver]`;
/** The path printed for registration; any path is accepted. */
const ENDPOINT_PATH = "/webhooks";
/** Far above any delivery of ours; a larger body is answered 413 unread. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Until a secret is pasted, deliveries are answered 503 with this Retry-After: the service honours it and retries. */
const NO_SECRET_RETRY_AFTER_SECONDS = 5;

/** What usually causes a refusal, for the reasons whose cause is not plain from the verifier's message. */
const HINTS: Record<string, string> = {
  no_matching_signature: "the secret pasted is not this endpoint's, or the body changed on the way",
  // Every attempt is signed when it is sent, so an old timestamp is a replay or a clock that is off.
  timestamp_too_old: "signed more than 5 minutes ago, or a clock that is off",
};

interface Options {
  port: number | undefined;
  dir: string;
  secret: string | undefined;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      dir: { type: "string" },
      secret: { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`--port must be a whole number from 0 to 65535\n${USAGE}`);
  }
  const secret = values.secret?.trim();
  return { port, dir: resolve(values.dir ?? join(".data", "receiver")), secret: secret || undefined };
}

/** Whether the verifier accepts `secret` as a signing secret; its message when it does not. */
async function secretProblem(secret: string): Promise<string | undefined> {
  try {
    await sign({ payload: "", secret });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const shortSecret = (secret: string) => `${secret.slice(0, 10)}…`;
const clock = () => new Date().toTimeString().slice(0, 8);
/** A path for a shell command line, quoted when it holds anything but the plain characters of a path. */
const shellWord = (word: string) => (/^[\w./@:+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

async function listen(server: Server, port: number): Promise<number> {
  server.listen(port, "127.0.0.1");
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]) => Promise.reject(error as Error)),
  ]);
  return (server.address() as { port: number }).port;
}

/** The given port; else last time's when it is free; else any free one. */
async function listenOnPort(server: Server, options: Options): Promise<number> {
  const portFile = join(options.dir, "port");
  if (options.port !== undefined) return listen(server, options.port);
  let previous: number | undefined;
  try {
    previous = Number(readFileSync(portFile, "utf8").trim()) || undefined;
  } catch {
    previous = undefined;
  }
  let port: number;
  try {
    port = await listen(server, previous ?? 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || previous === undefined) throw error;
    process.stdout.write(`Port ${previous} (last time's) is taken: a new URL below, register it instead.\n`);
    port = await listen(server, 0);
  }
  mkdirSync(options.dir, { recursive: true });
  writeFileSync(portFile, `${port}\n`);
  return port;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const headerValue = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return (Array.isArray(value) ? value.join(" ") : value) ?? "-";
};

async function main(): Promise<void> {
  const options = parseOptions();
  let secrets: string[] = [];
  if (options.secret) {
    const problem = await secretProblem(options.secret);
    if (problem) throw new Error(`the signing secret given is not one: ${problem}`);
    secrets = [options.secret];
  }
  const seen = new Set<string>();

  const certificates = await loadCertificates(options.dir);
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    // A request that breaks off while its body is read ends here, not in an unhandled rejection that stops the receiver.
    handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") {
      res.writeHead(req.method === "GET" ? 200 : 405, { "content-type": "text/plain" });
      res.end("The local webhook receiver: the service POSTs its deliveries here.\n");
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413).end();
      return;
    }
    // Before verification these are only claims of the sender; the verified event's own id and type replace them.
    const claimed = `${headerValue(req, "x-service-event")}  ${headerValue(req, "webhook-id")}`;
    const delivery = `delivery ${headerValue(req, "x-service-delivery")}`;
    if (secrets.length === 0) {
      process.stdout.write(
        `${clock()}  waiting   ${claimed}  ${delivery}  no signing secret yet: paste it here (answered 503; listen and the service try again)\n`,
      );
      res.writeHead(503, { "retry-after": String(NO_SECRET_RETRY_AFTER_SECONDS) }).end();
      return;
    }
    try {
      const event = await verifyWebhook({ payload: body, headers: req.headers, secrets });
      const again = seen.has(event.id) ? "  (seen before: deliveries are at least once)" : "";
      seen.add(event.id);
      process.stdout.write(`${clock()}  verified  ${event.type}  ${event.id}  ${delivery}${again}\n`);
      res.writeHead(204).end();
    } catch (error) {
      const reason = error instanceof WebhookVerificationError ? error.reason : "error";
      const message = error instanceof Error ? error.message : String(error);
      const hint = HINTS[reason] ? ` (${HINTS[reason]})` : "";
      process.stdout.write(`${clock()}  refused   ${claimed}  ${delivery}  ${reason}: ${message}${hint}\n`);
      res.writeHead(400, { "content-type": "text/plain" }).end(reason);
    }
  }

  let port: number;
  try {
    port = await listenOnPort(server, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new Error(`port ${options.port} is taken: choose another with --port`);
    throw error;
  }
  const url = `https://127.0.0.1:${port}${ENDPOINT_PATH}`;
  const ca = shellWord(certificates.caFile);
  // listen needs nothing of the service (it only reads the change stream): the printed line is all there is to run.
  const listenLine = `SERVICE_API_KEY=$API_KEY NODE_EXTRA_CA_CERTS=${ca} npm run listen -- --forward-to ${url}`;
  const start = `NODE_EXTRA_CA_CERTS=${ca} WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start`;
  const caNote = certificates.caCreated
    ? "new"
    : "kept from the last start: a listen or a service started with a line below still trusts it";
  const secretStep =
    secrets[0] === undefined
      ? "2. Paste its signing secret (whsec_…) here and press Enter: listen prints it at start, and keeps it."
      : `2. Deliveries are verified with the signing secret given (${shortSecret(secrets[0])}); paste another here to change it.`;
  process.stdout.write(
    [
      `Local webhook receiver on ${url}`,
      `Its certificate authority: ${certificates.caFile} (${caNote})`,
      "",
      "1. In another terminal, forward your workspace's events here with listen (nothing to change in the service;",
      "   API_KEY holds your test key, sk_test_…, with the events:read scope):",
      "",
      `   ${listenLine}`,
      "",
      secretStep,
      "3. Make an event happen, in a third terminal (`-- --list` lists every type):",
      "",
      "   SERVICE_API_KEY=$API_KEY npm run trigger -- lead.captured",
      "",
      "   Each delivery is checked with @service/webhook-verifier and printed here. Ctrl-C stops.",
      "",
      "Real webhooks instead: start the service with the line below (it trusts this CA and may deliver to your own",
      "machine; local development only, and a running service reads these settings only when it starts), add the",
      "endpoint above in the console (Developers → Webhooks → Add endpoint) and paste its signing secret here:",
      "",
      `   ${start}`,
      "",
      "",
    ].join("\n"),
  );

  // Lines of standard input are secrets (pasted). In a terminal, readline reads keys itself (raw mode), so Ctrl-C is
  // a key this process handles, not a SIGINT to the whole process group: npm, which runs it, would die of that signal
  // and exit 130 however cleanly the receiver stopped.
  const terminal = process.stdin.isTTY === true;
  const input = createInterface({ input: process.stdin, output: process.stdout, terminal });
  input.on("line", (line) => {
    const secret = line.trim();
    if (secret === "") return;
    void secretProblem(secret).then((problem) => {
      if (problem) {
        process.stdout.write(`That is not a signing secret (whsec_…): ${problem}\n`);
        return;
      }
      secrets = [secret, ...secrets.filter((other) => other !== secret)].slice(0, 2);
      const previous = secrets[1] ? ` (the previous one, ${shortSecret(secrets[1])}, still verifies)` : "";
      process.stdout.write(`Verifying with ${shortSecret(secret)}${previous}: waiting for deliveries.\n`);
    });
  });

  const stop = () => {
    input.close();
    server.closeAllConnections();
    server.close();
    process.exit(0);
  };
  input.on("SIGINT", stop);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`receiver: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
