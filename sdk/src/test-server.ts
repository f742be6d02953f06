/**
 * Test helper (not part of the package: no entry point imports it): a real node:http server on port 0 whose answers
 * the test writes, and the requests it received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Resolves when the server has received `count` requests. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startServer(
  answer: (request: SeenRequest, res: ServerResponse, index: number) => void | Promise<void>,
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = {
      method: req.method ?? "GET",
      url: new URL(req.url ?? "/", "http://127.0.0.1"),
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(seen);
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
    await answer(seen, res, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    received: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        // A server that never answers keeps its sockets open: close them, or close() waits for them forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** A problem+json answer as the API writes them. */
export function problem(res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/problem+json", "request-id": "req_test", ...headers }).end(
    JSON.stringify({
      type: `/problems/${code.toLowerCase().replaceAll("_", "-")}`,
      title: code,
      status,
      detail: `${code} (test)`,
      code,
      request_id: "req_test",
    }),
  );
}
