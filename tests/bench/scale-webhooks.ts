/**
 * The fan-out half of bench:scale: subscriptions made through the API, then leads created with the service's own
 * transaction code (`createLead` with the event recorder, as POST /v1/leads runs them), each recording its event with
 * one delivery per subscription and one pg-boss job per delivery. No worker runs meanwhile, so the jobs pile up into
 * the backlog that the drain measures.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../../server/src/db/transaction.ts";
import { recordEvent } from "../../server/src/domain/events/events.service.ts";
import { createLead } from "../../server/src/domain/leads/leads.service.ts";
import { newWebhookSecret } from "../../server/src/domain/webhooks/signature.ts";
import { MAX_WEBHOOKS } from "../../server/src/domain/webhooks/webhooks.service.ts";
import { newId } from "../../server/src/lib/ids.ts";

/** The statements of the fan-out transaction, in order, by what their SQL says. */
const STEPS: [RegExp, string][] = [
  [/INSERT INTO leads/, "insert the lead"],
  [/record_event/, "the event and its deliveries"],
  [/json_to_recordset/, "the deliveries' jobs (pg-boss insert)"],
];

/** Events recorded one at a time and timed (BEGIN to COMMIT), then requests through the API, also timed. */
const DIRECT_SAMPLES = 200;
const HTTP_SAMPLES = 50;
/** Transactions at once while filling the rest of the backlog. */
const FILL_CONCURRENCY = 4;

export async function recordFanOuts(input: {
  pool: pg.Pool;
  boss: PgBoss;
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

  // The events go to the outbox; the running service's sequencer numbers them and writes their deliveries.
  const record = recordEvent;
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

  const outboxEmpty = async () => {
    for (;;) {
      const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox");
      if ((rows[0]?.n ?? 0) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const pendingNow = async () => {
    await outboxEmpty();
    return (
      (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'")).rows[0]
        ?.n ?? 0
    );
  };
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
