/**
 * The fleet's client (run inside its client host by fleet.ts), in one of three modes, given as JSON in a file:
 * - requests: sends the requests given as JSON, one after another, to the balancer, and prints their answers (status,
 *   body, duration, time, and the `RateLimit` header);
 * - parallel: the same, all at once;
 * - load: for `seconds`, `rate` requests a second (as many as answers allow when omitted) over `connections` (16)
 *   connections, `GET /v1/leads` alternately with an idempotent `POST /v1/leads` (its Idempotency-Key also its
 *   `external_id`; reads only with `writes: false`), each retried with the same key on a network error; prints how
 *   many were sent, the failures, the keys of the acknowledged writes, and each answer's time and duration.
 *
 *   node --import tsx tests/helpers/fleet-client.ts http://10.200.0.5:8080 requests requests.json
 *   node --import tsx tests/helpers/fleet-client.ts http://10.200.0.5:8080 load load.json
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";

const [base, mode, specFile] = process.argv.slice(2) as [string, string, string];
const spec = readFileSync(specFile, "utf8");

export interface FleetRequest {
  method?: string;
  /** A path on the balancer, or a whole URL (a host directly). */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sends it again every 20 ms until it answers this status (at most `timeoutMs`). */
  until?: number;
  timeoutMs?: number;
}

export interface LoadOptions {
  seconds: number;
  /** Requests a second; as many as the answers allow when omitted. */
  rate?: number;
  key: string;
  connections?: number;
  /** Every other request an idempotent write (default); reads only when false. */
  writes?: boolean;
}

async function send(request: FleetRequest) {
  const started = performance.now();
  try {
    const response = await fetch(new URL(request.path, base), {
      method: request.method ?? "GET",
      headers: { ...(request.body !== undefined && { "content-type": "application/json" }), ...request.headers },
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.text();
    const ratelimit = response.headers.get("ratelimit") ?? undefined;
    return { status: response.status, body, ms: performance.now() - started, at: Date.now(), ratelimit };
  } catch (error) {
    return { status: 0, body: String(error), ms: performance.now() - started, at: Date.now() };
  }
}

async function sendUntil(request: FleetRequest) {
  const deadline = Date.now() + (request.timeoutMs ?? 5_000);
  let answer = await send(request);
  while (request.until !== undefined && answer.status !== request.until && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    answer = await send(request);
  }
  return answer;
}

if (mode === "requests") {
  const answers = [];
  for (const request of JSON.parse(spec) as FleetRequest[]) answers.push(await sendUntil(request));
  process.stdout.write(JSON.stringify(answers));
} else if (mode === "parallel") {
  process.stdout.write(JSON.stringify(await Promise.all((JSON.parse(spec) as FleetRequest[]).map(sendUntil))));
} else {
  const options = JSON.parse(spec) as LoadOptions;
  const { seconds, rate, key, connections = 16, writes = true } = options;
  const auth = { authorization: `Bearer ${key}` };
  const failures: { status: number; body: string }[] = [];
  const acknowledged: string[] = [];
  const answered: [number, number][] = [];
  let sent = 0;
  const until = Date.now() + seconds * 1_000;
  const interval = rate === undefined ? 0 : (connections * 1_000) / rate;
  await Promise.all(
    Array.from({ length: connections }, async (_, lane) => {
      for (let n = lane; Date.now() < until; n += connections) {
        const next = Date.now() + interval;
        sent += 1;
        const write = writes && n % 2 === 1;
        const id = randomUUID();
        const request: FleetRequest = write
          ? {
              method: "POST",
              path: "/v1/leads",
              headers: { ...auth, "idempotency-key": id },
              body: { external_id: id },
            }
          : { path: "/v1/leads?limit=5", headers: auth };
        let answer = await send(request);
        // A connection the network lost: the same request again, as an integrator's client does (same key).
        for (let retry = 0; retry < 3 && answer.status === 0; retry++) answer = await send(request);
        answered.push([answer.at, Math.round(answer.ms * 10) / 10]);
        if (answer.status >= 200 && answer.status < 300) {
          if (write) acknowledged.push(id);
        } else failures.push({ status: answer.status, body: answer.body.slice(0, 200) });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      }
    }),
  );
  process.stdout.write(JSON.stringify({ sent, failures, acknowledged, answered }));
}
