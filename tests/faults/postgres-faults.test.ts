/**
 * The service against a PostgreSQL that fails under it: crashed (SIGQUIT) under concurrent writers, frozen
 * (SIGSTOP), and its connections cut (pg_terminate_backend). The server runs as a child process, as `npm start`
 * runs it, so that a crash of the process is seen as one.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { type PrivatePostgres, startPrivatePostgres } from "../helpers/private-postgres.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";
import { makeCertificates, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";

const STATEMENT_TIMEOUT_MS = 1_500;
const CONNECT_TIMEOUT_MS = 1_500;
/**
 * The longest a request takes while the database does not answer: the client's query timeout (statement_timeout plus
 * its 1 s margin) on a connection already open; a new connection gives up sooner, at CONNECT_TIMEOUT_MS.
 */
const LEGITIMATE_WORST_MS = STATEMENT_TIMEOUT_MS + 1_000;
/** With 3 s for a loaded machine: still far short of the 10 s freeze, so an answer that waited it out fails. */
const WORST_ANSWER_MS = LEGITIMATE_WORST_MS + 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PostgreSQL failing under the service", () => {
  let database: PrivatePostgres;
  let server: ServerProcess;
  let receiver: Receiver;
  let pool: pg.Pool;
  let key: string;

  const call = async (path: string, init: RequestInit = {}) => {
    const started = performance.now();
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
  };

  beforeAll(async () => {
    database = await startPrivatePostgres();
    const certificates = await makeCertificates();
    receiver = await startReceiver(certificates);
    server = await runServer(
      [],
      bareEnv({
        PORT: "0",
        DATABASE_URL: database.url,
        DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        NODE_EXTRA_CA_CERTS: certificates.caFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        API_RATE_LIMIT_PER_MINUTE: "1000000",
        // Only a NOTIFY wakes the worker within a test's time: see the LISTEN test.
        WEBHOOK_POLL_INTERVAL_MS: "60000",
      }),
    );
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on("error", () => undefined);
    const workspace = await createWorkspace(pool, { name: "Faults", ownerEmail: "faults@example.com" });
    key = (await createApiKey(pool, { workspaceId: workspace.workspace_id, name: "faults", scopes: ALL_SCOPES })).key;
  });
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await pool?.end().catch(() => undefined);
    await receiver?.close();
    await database?.stop();
  });

  it("survives a crash under 8 concurrent writers: no acknowledged write lost, 503 meanwhile, 2xx within 5 s of its return, every webhook delivered", {
    timeout: 240_000,
  }, async () => {
    const subscribed = await call("/v1/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: `${receiver.url}/crash`, events: ["lead.captured"] }),
    });
    expect(subscribed.status).toBe(201);
    const acknowledged = new Map<string, string>();
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    let running = true;
    let returnedAt = 0;
    let firstSuccessAfterReturn = 0;
    const writer = async () => {
      while (running) {
        // A client retrying one write with one Idempotency-Key until it is acknowledged, as the SDK does.
        const idempotencyKey = randomUUID();
        for (;;) {
          const answer = await call("/v1/leads", {
            method: "POST",
            headers: { "idempotency-key": idempotencyKey },
            body: JSON.stringify({ name: "crash test", external_id: idempotencyKey }),
          }).catch(() => undefined);
          if (answer) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer?.status === 201) {
            acknowledged.set(idempotencyKey, (JSON.parse(answer.text) as { id: string }).id);
            if (returnedAt && !firstSuccessAfterReturn) firstSuccessAfterReturn = Date.now();
            break;
          }
          if (answer && answer.status !== 503 && answer.status !== 409) {
            unexpected.push(`${answer.status} ${answer.text}`);
            break;
          }
          await sleep(100);
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await sleep(1_000);
    await database.crash();
    await sleep(2_000);
    await database.start();
    returnedAt = Date.now();
    for (let i = 0; i < 100 && !firstSuccessAfterReturn; i++) await sleep(100);
    await sleep(500);
    running = false;
    await Promise.all(writers);

    const errors = server.logs.filter((entry) => Number(entry.level) >= 50);
    expect(unexpected, JSON.stringify(errors.slice(0, 3), null, 1)).toEqual([]);
    expect(server.child.exitCode, "the process is still running").toBeNull();
    // Seen at all first: with none, the difference below would be negative and pass.
    expect(firstSuccessAfterReturn, "a 2xx after PostgreSQL's return").toBeGreaterThan(0);
    expect(firstSuccessAfterReturn - returnedAt, "first 2xx after PostgreSQL's return, in ms").toBeLessThan(5_000);
    expect(statuses.get(503) ?? 0, "answers while PostgreSQL was down").toBeGreaterThan(0);
    expect([...statuses.keys()].filter((status) => status >= 500 && status !== 503)).toEqual([]);
    const { rows } = await pool.query<{ id: string; external_id: string }>("SELECT id, external_id FROM leads");
    const stored = new Map(rows.map((row) => [row.external_id, row.id]));
    for (const [idempotencyKey, id] of acknowledged) expect(stored.get(idempotencyKey)).toBe(id);
    expect(rows.length, "one lead per acknowledged key").toBe(acknowledged.size);
    expect(errors).toEqual([]);

    // The worker resumes by itself: every acknowledged lead's event is delivered, those whose attempt the crash cut
    // once pg-boss's expiry hands their jobs on (the poll is a minute here, so allow for one).
    const delivered = () => {
      const bodies = receiver.received.filter((request) => request.path === "/crash").map((request) => request.body);
      return [...acknowledged.values()].filter((id) => !bodies.some((body) => body.includes(id)));
    };
    await expect.poll(delivered, { timeout: 150_000, interval: 500, message: "leads not delivered" }).toEqual([]);
  });

  it("answers 503 with Retry-After within its timeouts while PostgreSQL is frozen for 10 s, and recovers without a restart", async () => {
    expect((await call("/v1/leads")).status).toBe(200);
    database.freeze();
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    try {
      const started = Date.now();
      const inFlight: Promise<void>[] = [];
      while (Date.now() - started < 10_000) {
        inFlight.push(call("/v1/leads").then((answer) => void answers.push(answer)));
        await sleep(300);
      }
      await Promise.all(inFlight);
      const ready = await fetch(`${server.url}/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, { ok: boolean }> }).checks.postgres?.ok).toBe(false);
    } finally {
      database.thaw();
    }
    expect(answers.length).toBeGreaterThan(10);
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(503);
      expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(answer.ms).toBeLessThan(WORST_ANSWER_MS);
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await call("/v1/leads")).status;
      if (status !== 200) await sleep(200);
    }
    expect(status).toBe(200);
  });

  it("rebuilds its LISTEN connections after they are cut: webhooks fast again, revocations seen", async () => {
    const created = await call("/v1/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: `${receiver.url}/listen`, events: ["lead.captured"] }),
    });
    expect(created.status).toBe(201);
    /** Whether the key cache's last word in the log since time `since` is that it is back (or none, if `quiet`). */
    const keyCacheBack = (since: number, quiet: boolean) => {
      const last = server.logs.findLast(
        (entry) => entry.listener === "service-key-cache" && Number(entry.time) >= since,
      );
      return last === undefined ? quiet : last.msg === "LISTEN connection restored";
    };
    /** Whether pg-boss's LISTEN connection (which wakes the delivery worker) is in place, as PostgreSQL sees it. */
    const queueListening = async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'service-queue-worker' AND (query LIKE 'LISTEN%' OR query LIKE '%pg_listening_channels%')`,
      );
      return (rows[0]?.n ?? 0) > 0;
    };
    // The crash and the freeze above cut the LISTENs too; their reconnection backs off (pg-boss's up to 30 s).
    await expect
      .poll(async () => keyCacheBack(0, true) && (await queueListening()), {
        timeout: 40_000,
        interval: 100,
        message: "both LISTENs back after the earlier outages",
      })
      .toBe(true);

    const cut = Date.now();
    expect(await database.terminate("service")).toBeGreaterThan(0);
    // Back within seconds (the key cache's first reconnection comes after 100 ms, pg-boss's after 1 s); 15 s gives a
    // loaded machine room. That they carry notifications again is what the delivery and the revocation below prove.
    // Polled one after the other, so that a failure says which of the two was late.
    await expect
      .poll(() => keyCacheBack(cut, false), {
        timeout: 15_000,
        interval: 50,
        message: "the key cache's LISTEN restored within 15 s of the cut",
      })
      .toBe(true);
    await expect
      .poll(queueListening, {
        timeout: Math.max(1, cut + 15_000 - Date.now()),
        interval: 50,
        message: "pg-boss's LISTEN restored within 15 s of the cut",
      })
      .toBe(true);

    // The worker polls once a minute here (WEBHOOK_POLL_INTERVAL_MS), and pg-boss's fetch after its reconnection has
    // run: a delivery that arrives within 20 s, far short of the next poll, was woken by its NOTIFY through the
    // rebuilt connection.
    const firstUse = Date.now();
    let lead = await call("/v1/leads", { method: "POST", body: JSON.stringify({ name: "after the cut" }) });
    for (let i = 0; i < 20 && lead.status !== 201; i++) {
      await sleep(100);
      lead = await call("/v1/leads", { method: "POST", body: JSON.stringify({ name: "after the cut" }) });
    }
    expect(lead.status, lead.text).toBe(201);
    const { id } = JSON.parse(lead.text) as { id: string };
    const deliveries = await receiver.waitFor(1, "/listen", 20_000);
    expect(
      deliveries.some((delivery) => delivery.body.includes(id)),
      "delivered within 20 s, not at the poll",
    ).toBe(true);

    // Another process revokes the key (its NOTIFY reaches this one through the rebuilt LISTEN): refused at once.
    expect((await call("/v1/leads")).status).toBe(200);
    await pool.query(
      `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE revoked_at IS NULL RETURNING id)
       SELECT pg_notify('api_key_changed', id) FROM revoked`,
    );
    // The NOTIFY takes milliseconds; 8 s allows for a loaded machine. The key cache holds a key for 30 s
    // (CACHE_TTL_MS in key-cache.ts), and nothing was cached before `firstUse` (the cut emptied the cache, and it
    // caches nothing until the LISTEN is back): a 401 within 30 s of it is the NOTIFY's doing, not the TTL's.
    await expect
      .poll(async () => (await call("/v1/leads")).status, { timeout: 8_000, interval: 50, message: "revoked key" })
      .toBe(401);
    expect(Date.now() - firstUse, "refused before a key cached since the cut could expire").toBeLessThan(30_000);
    expect(server.child.exitCode).toBeNull();
  });
});
