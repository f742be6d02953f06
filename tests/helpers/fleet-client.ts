/**
 * The fleet's client (run inside its client host by fleet.ts): sends the requests given as JSON, one after another,
 * to the balancer, and prints their answers as JSON.
 *
 *   node --import tsx tests/helpers/fleet-client.ts http://10.200.0.5:8080 '[{"path":"/ready"}]'
 */
const [base, list] = process.argv.slice(2) as [string, string];
const answers = [];
for (const request of JSON.parse(list) as {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}[]) {
  const started = performance.now();
  try {
    const response = await fetch(new URL(request.path, base), {
      method: request.method ?? "GET",
      headers: { ...(request.body !== undefined && { "content-type": "application/json" }), ...request.headers },
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(10_000),
    });
    answers.push({ status: response.status, body: await response.text(), ms: performance.now() - started });
  } catch (error) {
    answers.push({ status: 0, body: String(error), ms: performance.now() - started });
  }
}
process.stdout.write(JSON.stringify(answers));
