/**
 * The fleet's client (run inside its client host by fleet.ts), in one of two modes:
 * - requests: sends the requests given as JSON, one after another, to the balancer, and prints their answers;
 * - load: for `seconds`, `rate` requests a second over 16 connections, alternately `GET /v1/leads` and an idempotent
 *   `POST /v1/leads` (its Idempotency-Key also its `external_id`), each retried with the same key on a network error;
 *   prints how many were sent, the failures, and the keys of the acknowledged writes.
 *
 *   node --import tsx tests/helpers/fleet-client.ts http://10.200.0.5:8080 requests '[{"path":"/ready"}]'
 *   node --import tsx tests/helpers/fleet-client.ts http://10.200.0.5:8080 load '{"seconds":20,"rate":200,"key":"sk_…"}'
 */
import { randomUUID } from "node:crypto";

const [base, mode, spec] = process.argv.slice(2) as [string, string, string];

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
    return { status: response.status, body, ms: performance.now() - started, at: Date.now() };
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
} else {
  const { seconds, rate, key } = JSON.parse(spec) as { seconds: number; rate: number; key: string };
  const auth = { authorization: `Bearer ${key}` };
  const failures: { status: number; body: string }[] = [];
  const acknowledged: string[] = [];
  let sent = 0;
  const until = Date.now() + seconds * 1_000;
  const interval = (16 * 1_000) / rate;
  await Promise.all(
    Array.from({ length: 16 }, async (_, lane) => {
      for (let n = lane; Date.now() < until; n += 16) {
        const next = Date.now() + interval;
        sent += 1;
        const write = n % 2 === 1;
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
        if (answer.status >= 200 && answer.status < 300) {
          if (write) acknowledged.push(id);
        } else failures.push({ status: answer.status, body: answer.body.slice(0, 200) });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      }
    }),
  );
  process.stdout.write(JSON.stringify({ sent, failures, acknowledged }));
}
