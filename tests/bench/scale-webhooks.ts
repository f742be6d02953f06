/**
 * The fan-out half of bench:scale: subscriptions made through the API, then leads created with the service's own
 * transaction code (`createLead` with `eventRecorder`, as POST /v1/leads runs them), each recording its event with
 * one delivery and one pg-boss job per subscription. No worker runs meanwhile, so the deliveries pile up into the
 * backlog that the drain measures.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type PgBoss from "pg-boss";
import { withTransaction } from "../../server/src/db/transaction.ts";
import { eventRecorder } from "../../server/src/domain/events/events.ts";
import { createLead } from "../../server/src/domain/leads/leads.ts";
import { createEnqueue, DELIVERY_QUEUE } from "../../server/src/domain/webhooks/deliveries.ts";
import { newWebhookSecret } from "../../server/src/domain/webhooks/signature.ts";
import { MAX_WEBHOOKS } from "../../server/src/domain/webhooks/webhooks.ts";
import { QUEUE_SCHEMA } from "../../server/src/jobs/queue.ts";
import { newId } from "../../server/src/lib/ids.ts";

/** The statements of the fan-out transaction, in order, by what their SQL says. */
const STEPS: [RegExp, string][] = [
  [/INSERT INTO leads/, "insert the lead"],
  [/INSERT INTO events/, "insert the event"],
  [/FROM webhooks/, "select the subscriptions"],
  [/INSERT INTO deliveries/, "insert the deliveries"],
  [/INSERT INTO pgboss\.job/, "insert the jobs (pg-boss)"],
  [/pg_notify/, "NOTIFY"],
];

/** Events recorded one at a time and timed (BEGIN to COMMIT), then requests through the API, also timed. */
const DIRECT_SAMPLES = 200;
const HTTP_SAMPLES = 50;
/** Transactions at once while filling the rest of the backlog. */
const FILL_CONCURRENCY = 4;
/** The service's default WEBHOOK_TIMEOUT_MS: it sets the jobs' expiry. */
const WEBHOOK_TIMEOUT_MS = 15_000;

export async function recordFanOuts(input: {
  pool: pg.Pool;
  queue: PgBoss;
  url: string;
  auth: Record<string, string>;
  workspaceId: string;
  receiverUrl: string;
  subscriptions: number;
  backlog: number;
}): Promise<{
  direct: number[];
  steps: Map<string, number[]>;
  http: number[];
  pending: number;
  fillSeconds: number;
}> {
  const { pool, url, auth, workspaceId } = input;
  const json = { ...auth, "content-type": "application/json" };
  // The API makes at most MAX_WEBHOOKS (20) subscriptions per workspace; the rest of the 100 are inserted as
  // createWebhook would insert them (the figure is 100, above the service's own cap).
  const viaApi = Math.min(MAX_WEBHOOKS, input.subscriptions);
  for (let i = 0; i < viaApi; i++) {
    const response = await fetch(`${url}/v1/webhooks`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ url: `${input.receiverUrl}/hooks/${i}`, events: ["lead.captured"] }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/webhooks: ${response.status} ${await response.text()}`);
  }
  for (let i = viaApi; i < input.subscriptions; i++) {
    await pool.query("INSERT INTO webhooks (id, workspace_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)", [
      newId("webhook"),
      workspaceId,
      `${input.receiverUrl}/hooks/${i}`,
      ["lead.captured"],
      newWebhookSecret(),
    ]);
  }

  const record = eventRecorder(createEnqueue(input.queue, { timeoutMs: WEBHOOK_TIMEOUT_MS }));
  const create = (i: number) =>
    withTransaction(pool, (db) =>
      createLead(db, workspaceId, { name: `Fan-out ${i}`, email: `fan-out.${i}@example.com` }, record),
    );
  // One at a time, each statement timed on its way through (a seam around the real connection).
  const direct: number[] = [];
  const steps = new Map<string, number[]>();
  const timed = (label: string, ms: number) => steps.set(label, [...(steps.get(label) ?? []), ms]);
  for (let i = 0; i < DIRECT_SAMPLES; i++) {
    const client = await pool.connect();
    const through = {
      query: async (config: string | pg.QueryConfig, values?: unknown[]) => {
        const text = typeof config === "string" ? config : config.text;
        const started = performance.now();
        try {
          return await client.query(config as pg.QueryConfig, values);
        } finally {
          timed(STEPS.find(([pattern]) => pattern.test(text))?.[1] ?? text.slice(0, 30), performance.now() - started);
        }
      },
    } as unknown as pg.PoolClient;
    try {
      const started = performance.now();
      await client.query("BEGIN");
      timed("BEGIN", performance.now() - started);
      await createLead(through, workspaceId, { name: `Fan-out ${i}`, email: `fan-out.${i}@example.com` }, record);
      const committing = performance.now();
      await client.query("COMMIT");
      timed("COMMIT", performance.now() - committing);
      direct.push(performance.now() - started);
    } finally {
      client.release();
    }
  }
  const http: number[] = [];
  for (let i = 0; i < HTTP_SAMPLES; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/v1/leads`, {
      method: "POST",
      headers: { ...json, "idempotency-key": randomUUID() },
      body: JSON.stringify({ name: `Fan-out over HTTP ${i}`, email: `fan-out.http.${i}@example.com` }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/leads: ${response.status} ${await response.text()}`);
    http.push(performance.now() - started);
  }

  const pendingNow = async () =>
    (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'")).rows[0]
      ?.n ?? 0;
  const filling = performance.now();
  const events = Math.max(0, Math.ceil((input.backlog - (await pendingNow())) / input.subscriptions));
  let next = 0;
  await Promise.all(
    Array.from({ length: FILL_CONCURRENCY }, async () => {
      while (next < events) await create(DIRECT_SAMPLES + next++);
    }),
  );
  return { direct, steps, http, pending: await pendingNow(), fillSeconds: (performance.now() - filling) / 1000 };
}

/** EXPLAIN (ANALYZE, BUFFERS) of the selection of pg-boss 10's fetch (src/plans.js fetchNextJob), rolled back. */
export async function explainFetch(pool: pg.Pool): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT id, singleton_key, policy FROM ${QUEUE_SCHEMA}.job
        WHERE name = $1 AND state < 'active' AND start_after < now()
        ORDER BY priority desc, created_on, id LIMIT 50 FOR UPDATE SKIP LOCKED`,
      [DELIVERY_QUEUE],
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
}
