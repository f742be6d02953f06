/**
 * A local HTTPS webhook receiver with its own certificate authority, made for the test run as `npm run receiver`
 * makes its own (scripts/receiver-ca.ts, no openssl). The service under test trusts the CA through Node's
 * NODE_EXTRA_CA_CERTS, as production would for a private CA.
 */
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCertificates } from "../../scripts/receiver-ca.ts";

export interface Certificates {
  caFile: string;
  key: string;
  cert: string;
  /** The folder of `ca.pem`, and of the server's `server.key` and `server.pem` for a receiver in another process. */
  dir: string;
}

/** `addresses`: IP addresses the server certificate names besides the loopback ones. */
export async function makeCertificates(addresses: readonly string[] = []): Promise<Certificates> {
  const dir = mkdtempSync(join(tmpdir(), "receiver-ca-"));
  const { caFile, key, cert } = await loadCertificates(dir, Date.now(), addresses);
  writeFileSync(join(dir, "server.key"), key, { mode: 0o600 });
  writeFileSync(join(dir, "server.pem"), cert);
  return { caFile, key, cert, dir };
}

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /**
   * Decides the answer to each request (default 204), sent after `delayMs`, or once `after` has settled (a receiver
   * that holds its answer until something else has happened).
   */
  respond: (
    request: Received,
    countOnPath: number,
  ) => { status: number; headers?: Record<string, string>; delayMs?: number; after?: Promise<unknown> };
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(certificates: Certificates): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: "",
    received,
    respond: () => ({ status: 204 }),
    async waitFor(count, path, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter((item) => path === undefined || item.path === path);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`received ${matching.length} of ${count} on ${path ?? "any path"}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => undefined,
  };
  const server: Server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
      );
      const item: Received = { path: req.url ?? "/", headers, body, at: Date.now() };
      received.push(item);
      const answer = receiver.respond(item, received.filter((other) => other.path === item.path).length);
      const send = () => setTimeout(() => res.writeHead(answer.status, answer.headers).end("ok"), answer.delayMs ?? 0);
      if (answer.after) answer.after.then(send, send);
      else send();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  receiver.url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

/** The most of these instants (epoch milliseconds) that fall within any one second. */
export function mostInOneSecond(instants: readonly number[]): number {
  const times = [...instants].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= 1000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
