/**
 * HTTP from a chosen local address (127.0.0.2, 127.0.0.3, … are all loopback on Linux), so that tests can be
 * different clients for per-IP limits. `fetch` cannot bind a source address; node:http can.
 */
import { request } from "node:http";

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export function http(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<HttpAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? (payload ? "POST" : "GET"),
        headers: {
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
          ...options.headers,
        },
        ...(options.from ? { localAddress: options.from } : {}),
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          resolve({ status: res.statusCode ?? 0, headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** The n-th test client address: 127.0.x.y. */
export function loopback(n: number): string {
  return `127.0.${Math.floor(n / 250) + 1}.${(n % 250) + 1}`;
}
