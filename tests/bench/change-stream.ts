/**
 * The change stream under load, against the built service in production (`node server/dist/main.js`, as `npm start`
 * runs it) on the machine's PostgreSQL and Redis. Prints, in one run:
 *
 *   1. nothing missed, nothing invented: 20 clients make 10,000 mixed writes (creates, updates and deletes of leads,
 *      conversations, messages and tickets; a few hot objects written by every client at once) while one consumer
 *      follows `after_sequence`; then the same with the API process SIGKILLed twice during the writes. Checked: every
 *      sequence once and in order; per object, versions 1, 2, 3… with no gap; every successful write's answer has its
 *      event; replaying the stream gives what GET gives (a deleted lead: 404).
 *   2. a committed change in a waiting consumer's hands: p50 and p95 from the start of a POST to its receipt;
 *   3. the feed read by one consumer paging with limit=100: events/s;
 *   4. POST /v1/leads by 20 clients to one workspace, then to 20 workspaces: req/s side by side, and the ratio;
 *   5. `npx @service/sdk listen` forwarding to a receiver that verifies with @service/webhook-verifier: a lead created
 *      through the SDK to its receipt (p50, p95), then the command killed for 30 s while 50 events happen: after its
 *      restart it must forward exactly those 50, in order.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
 *     npm run bench:change-stream
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { createClient } from "@service/sdk";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { freePort } from "../helpers/free-port.ts";
import { type Received, startListen, startVerifyingReceiver, until } from "../helpers/listen.ts";
import { runServer, type ServerProcess } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { benchServiceEnv } from "./service-env.ts";

const WRITES = Number(process.env.BENCH_WRITES ?? 10_000);
const CLIENTS = 20;
const SCOPES = ["leads:read", "leads:write", "conversations:read", "conversations:write", "tickets:read"];
const ALL_SCOPES = [...SCOPES, "tickets:write", "events:read"];

type Json = Record<string, unknown>;
interface StreamEvent {
  type: string;
  sequence: number;
  data: { object: Json & { id: string; version: number } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * p) - 1)] ?? Number.NaN;

/** A service on a fixed port, so that a restarted process answers at the same address. */
async function startService(databaseUrl: string, port: number): Promise<ServerProcess> {
  return runServer([], benchServiceEnv(databaseUrl, { PORT: String(port), WEB_CONCURRENCY: "1" }));
}

/**
 * One API call; a write carries an Idempotency-Key, and a network failure or 5xx (the process was killed) is tried
 * again with the same key.
 */
async function call(base: () => string, key: string, method: string, path: string, body?: Json) {
  const idempotency = randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`${base()}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(method !== "GET" && { "idempotency-key": idempotency }),
          ...(body && { "content-type": "application/json" }),
        },
        ...(body && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 500 && attempt < 600) {
        await sleep(100);
        continue;
      }
      return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
    } catch (error) {
      if (attempt >= 600) throw error;
      await sleep(100);
    }
  }
}

/** Follows the stream until `stop()` and the stream is drained; returns every event read. */
function follow(base: () => string, key: string) {
  const events: StreamEvent[] = [];
  let stopping = false;
  const done = (async () => {
    for (;;) {
      const after = events.at(-1)?.sequence ?? 0;
      let page: { data: StreamEvent[] };
      try {
        const response = await fetch(`${base()}/v1/events?after_sequence=${after}&limit=100&wait=${stopping ? 0 : 2}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
        page = (await response.json()) as { data: StreamEvent[] };
      } catch {
        await sleep(100); // the process is being restarted
        continue;
      }
      events.push(...page.data);
      if (stopping && page.data.length === 0) return events;
    }
  })();
  return {
    events,
    stop: () => {
      stopping = true;
      return done;
    },
  };
}

/** The mixed writes of one run; `onProgress` is told the count after each, for the kills. */
async function mixedWrites(base: () => string, key: string, onProgress: (done: number) => Promise<void>) {
  const answers: { method: string; status: number; object?: Json }[] = [];
  const leads: string[] = [];
  const conversations: string[] = [];
  const tickets: string[] = [];
  const record = (method: string, answer: { status: number; body: Json }) => {
    answers.push({ method, status: answer.status, ...(answer.status < 300 && { object: answer.body }) });
    return answer;
  };
  // The hot objects every client writes.
  const hotLead = (await call(base, key, "POST", "/v1/leads", { name: "hot" })).body.id as string;
  const hotConversation = (await call(base, key, "POST", "/v1/conversations", { lead_id: hotLead })).body.id as string;
  const hotTicket = (await call(base, key, "POST", "/v1/tickets", { subject: "hot" })).body.id as string;
  leads.push(hotLead);
  conversations.push(hotConversation);
  tickets.push(hotTicket);
  const pick = (list: string[], i: number) => (i % 4 === 0 ? list[0] : list[Math.floor(Math.random() * list.length)]);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < WRITES) {
        const i = next++;
        const roll = i % 20;
        if (roll < 4) {
          const answer = record("lead.create", await call(base, key, "POST", "/v1/leads", { name: `l${i}` }));
          if (answer.status === 201) leads.push(answer.body.id as string);
        } else if (roll < 8) {
          const id = pick(leads, i) as string;
          record("lead.update", await call(base, key, "PATCH", `/v1/leads/${id}`, { company: `c${i % 7}` }));
        } else if (roll < 9 && leads.length > 2) {
          const id = leads.splice(1 + Math.floor(Math.random() * (leads.length - 1)), 1)[0] as string;
          record("lead.delete", await call(base, key, "DELETE", `/v1/leads/${id}`));
        } else if (roll < 11) {
          const body = { lead_id: pick(leads, i), message: { author: { type: "lead", id: null }, body: `m${i}` } };
          const answer = record("conversation.create", await call(base, key, "POST", "/v1/conversations", body));
          if (answer.status === 201) conversations.push(answer.body.id as string);
        } else if (roll < 13) {
          const id = pick(conversations, i) as string;
          const state = ["open", "closed"][i % 2];
          record("conversation.update", await call(base, key, "PATCH", `/v1/conversations/${id}`, { state }));
        } else if (roll < 16) {
          const id = pick(conversations, i) as string;
          const body = { author: { type: "agent", id: "a@example.com" }, body: `r${i}` };
          record("message.create", await call(base, key, "POST", `/v1/conversations/${id}/messages`, body));
        } else if (roll < 18) {
          const answer = record("ticket.create", await call(base, key, "POST", "/v1/tickets", { subject: `t${i}` }));
          if (answer.status === 201) tickets.push(answer.body.id as string);
        } else {
          const id = pick(tickets, i) as string;
          const priority = ["low", "normal", "high", "urgent"][i % 4];
          record("ticket.update", await call(base, key, "PATCH", `/v1/tickets/${id}`, { priority }));
        }
        await onProgress(++done);
      }
    }),
  );
  return answers;
}

/** The checks of "nothing missed, nothing invented"; returns the problems found (none is a pass). */
async function check(
  base: () => string,
  key: string,
  events: StreamEvent[],
  answers: Awaited<ReturnType<typeof mixedWrites>>,
) {
  const problems: string[] = [];
  events.forEach((event, i) => {
    if (event.sequence !== i + 1) problems.push(`event ${i} has sequence ${event.sequence}`);
  });
  const byObject = new Map<string, StreamEvent[]>();
  for (const event of events) {
    const id = event.data.object.id;
    byObject.set(id, [...(byObject.get(id) ?? []), event]);
  }
  for (const [id, list] of byObject) {
    list.forEach((event, i) => {
      if (event.data.object.version !== i + 1)
        problems.push(`${id}: event ${i + 1} has version ${event.data.object.version}`);
    });
  }
  const seen = new Set(events.map((event) => `${event.data.object.id}@${event.data.object.version}`));
  for (const answer of answers) {
    const object = answer.object as { id?: string; version?: number } | undefined;
    if (object?.id && !seen.has(`${object.id}@${object.version}`))
      problems.push(`no event for ${object.id}@${object.version}`);
  }
  let compared = 0;
  for (const [id, list] of byObject) {
    const last = list.at(-1) as StreamEvent;
    const kind = id.split("_")[0] as string;
    const path = { lead: "leads", conv: "conversations", tkt: "tickets", msg: "" }[kind];
    if (!path) continue; // messages have no GET of their own; their conversation's count is compared
    const current = await call(base, key, "GET", `/v1/${path}/${id}`);
    compared += 1;
    if (last.type === "lead.deleted") {
      if (current.status !== 404) problems.push(`${id} deleted in the stream, GET answers ${current.status}`);
    } else if (!isDeepStrictEqual(current.body, last.data.object)) {
      problems.push(`${id}: the stream's last state differs from GET`);
    }
  }
  return { problems, objects: byObject.size, compared };
}

/** A service of its own for one phase: a fresh database, the service on a fixed port, and a workspace with a key. */
async function phaseService(name: string, scopes = ALL_SCOPES) {
  const database = await benchDatabase();
  const port = await freePort();
  const phase = {
    server: await startService(database.url, port),
    base: () => `http://127.0.0.1:${port}`,
    port,
    databaseUrl: database.url,
    pool: new pg.Pool({ connectionString: database.url, max: 2 }),
    workspaceId: "",
    key: "",
    async stop() {
      await phase.server.stop();
      await phase.pool.end();
      await database.drop();
    },
  };
  const owner = `${name.toLowerCase()}@example.com`;
  phase.workspaceId = (await createWorkspace(phase.pool, { name, ownerEmail: owner })).workspace_id;
  phase.key = (await createApiKey(phase.pool, { workspaceId: phase.workspaceId, name: "bench", scopes })).key;
  return phase;
}

async function streamRun(label: string, kills: number) {
  const phase = await phaseService("Stream");
  const { base, key } = phase;
  const consumer = follow(base, key);
  const started = performance.now();
  const killAt = Array.from({ length: kills }, (_, i) => Math.round(((i + 1) * WRITES) / (kills + 1)));
  let restarting: Promise<void> | undefined;
  const answers = await mixedWrites(base, key, async (done) => {
    if (killAt[0] !== undefined && done >= killAt[0] && !restarting) {
      killAt.shift();
      restarting = (async () => {
        await phase.server.stop("SIGKILL");
        phase.server = await startService(phase.databaseUrl, phase.port);
      })().finally(() => {
        restarting = undefined;
      });
    }
  });
  await restarting;
  const writeSeconds = (performance.now() - started) / 1000;
  const events = await consumer.stop();
  const result = await check(base, key, events, answers);
  const succeeded = answers.filter((answer) => answer.status < 300).length;
  console.log(
    `${label}: ${answers.length} writes (${succeeded} 2xx) in ${writeSeconds.toFixed(1)} s, ${events.length} events ` +
      `about ${result.objects} objects (${result.compared} compared with GET): ` +
      (result.problems.length === 0 ? "PASS" : `FAIL\n  ${result.problems.slice(0, 20).join("\n  ")}`),
  );
  await phase.stop();
  return { events, problems: result.problems };
}

async function latencyAndFeed() {
  const phase = await phaseService("Latency");
  const { base, key, pool, workspaceId } = phase;
  const latencies: number[] = [];
  for (let i = 0; i < 100; i++) {
    const waiting = fetch(`${base()}/v1/events?after_sequence=${i}&wait=10`, {
      headers: { authorization: `Bearer ${key}` },
    }).then(async (response) => {
      await response.json();
      return performance.now();
    });
    await sleep(20); // the reader is waiting before the write starts
    const started = performance.now();
    await call(base, key, "POST", "/v1/leads", { name: `latency ${i}` });
    latencies.push((await waiting) - started);
  }
  // 500 consumers waiting on an idle workspace: the database's transactions and the service's connections over 5 s,
  // against 5 s with none waiting.
  const idle = async (waiting: number) => {
    const readers = Array.from({ length: waiting }, () =>
      fetch(`${base()}/v1/events?after_sequence=100&wait=8`, { headers: { authorization: `Bearer ${key}` } }),
    );
    await sleep(1_500);
    const stat = async () =>
      Number(
        (await pool.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).rows[0]
          .xact_commit,
      );
    const before = await stat();
    await sleep(5_000);
    const transactions = (await stat()) - before - 2; // the two readings of this function
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()",
    );
    await Promise.all(readers.map((reader) => reader.then((response) => response.text())));
    return { transactionsPerSecond: transactions / 5, busyConnections: rows[0].n as number };
  };
  const idleCost = { none: await idle(0), waiting: await idle(500) };
  // The feed: 20,000 events, read from 0 by one consumer paging with limit=100.
  await pool.query(
    `INSERT INTO event_outbox (id, workspace_id, type, data, created_at)
     SELECT 'evt_01JD' || lpad(upper(to_hex(g)), 22, '0'), $1, 'lead.captured', jsonb_build_object('object', jsonb_build_object('id', 'lead_x', 'name', 'n' || g, 'version', 1)), now()
       FROM generate_series(1, 20000) AS g`,
    [workspaceId],
  );
  while ((await pool.query("SELECT count(*)::int AS n FROM event_outbox")).rows[0].n > 0) await sleep(100);
  await pool.query("ANALYZE events");
  const reading = performance.now();
  let read = 0;
  for (let after = 0; ; ) {
    const response = await fetch(`${base()}/v1/events?after_sequence=${after}&limit=100`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const page = (await response.json()) as { data: StreamEvent[]; has_more: boolean };
    read += page.data.length;
    after = page.data.at(-1)?.sequence ?? after;
    if (!page.has_more) break;
  }
  const feedPerSecond = read / ((performance.now() - reading) / 1000);
  await phase.stop();
  return { latencies, feedPerSecond, read, idleCost };
}

async function contention() {
  const phase = await phaseService("W0", SCOPES);
  const { base, pool } = phase;
  const keys: string[] = [phase.key];
  for (let i = 1; i < CLIENTS; i++) {
    const { workspace_id } = await createWorkspace(pool, { name: `W${i}`, ownerEmail: `w${i}@example.com` });
    keys.push((await createApiKey(pool, { workspaceId: workspace_id, name: "bench", scopes: SCOPES })).key);
  }
  const rate = async (keyOf: (client: number) => string, seconds: number) => {
    let count = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        while (performance.now() < until) {
          const answer = await call(base, keyOf(client), "POST", "/v1/leads", { name: "c" });
          if (answer.status === 201) count += 1;
        }
      }),
    );
    return count / seconds;
  };
  await rate(() => keys[0] as string, 3); // warm-up
  const rounds: { one: number; many: number }[] = [];
  for (let round = 0; round < 3; round++) {
    const one = await rate(() => keys[0] as string, 5);
    const many = await rate((client) => keys[client] as string, 5);
    rounds.push({ one, many });
  }
  await phase.stop();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[1] as number;
  return { one: median(rounds.map((r) => r.one)), many: median(rounds.map((r) => r.many)) };
}

/** `listen` forwarding to a verifying receiver: latency, then 30 s killed while 50 events happen. */
async function listenPhase() {
  const phase = await phaseService("Listen");
  const { key } = phase;
  const baseUrl = phase.base();
  const client = createClient({ apiKey: key, baseUrl });
  const receiver = await startVerifyingReceiver();
  const state = join(mkdtempSync(join(tmpdir(), "listen-")), "position.json");
  const output: string[] = [];
  const position = () => (JSON.parse(readFileSync(state, "utf8")) as { after_sequence: number }).after_sequence;
  let child = await startListen({ key, baseUrl, forwardTo: receiver.url, state, output });
  const latencies: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = Date.now();
    const { error } = await client.POST("/v1/leads", { body: { name: `listen ${i}` } });
    if (error) throw new Error(error.code);
    await until(() => receiver.received.length === i + 1, 10_000);
    latencies.push((receiver.received[i] as Received).at - started);
  }
  await until(() => position() === 50, 10_000);
  child.kill("SIGKILL");
  const missed: string[] = [];
  for (let i = 0; i < 50; i++) {
    const { data, error } = await client.POST("/v1/leads", { body: { name: `while down ${i}` } });
    if (error) throw new Error(error.code);
    missed.push(data.id);
    await sleep(600);
  }
  child = await startListen({ key, baseUrl, forwardTo: receiver.url, state, output });
  await until(() => receiver.received.length >= 100, 30_000);
  await sleep(1_000);
  const after = receiver.received.slice(50).map((event) => event.object);
  const exact = isDeepStrictEqual(after, missed) && receiver.refused.length === 0;
  child.kill("SIGKILL");
  receiver.close();
  await phase.stop();
  return { latencies, exact, forwarded: after.length };
}

const plain = await streamRun(`${WRITES.toLocaleString("en")} mixed writes, ${CLIENTS} clients`, 0);
const killed = await streamRun("the same, the API process SIGKILLed twice", 2);
const { latencies, feedPerSecond, read, idleCost } = await latencyAndFeed();
const { one, many } = await contention();
const listened = await listenPhase();
console.log(
  `commit to a waiting consumer (100 writes, from the POST's start): p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
    `p95 ${percentile(latencies, 0.95).toFixed(1)} ms (target p50 ≤ 100 ms)`,
);
console.log(
  `idle, 5 s: ${idleCost.none.transactionsPerSecond.toFixed(1)} transactions/s with no reader waiting, ` +
    `${idleCost.waiting.transactionsPerSecond.toFixed(1)} with 500 waiting (wait=8); busy connections ` +
    `${idleCost.none.busyConnections} and ${idleCost.waiting.busyConnections}`,
);
console.log(`feed, one consumer, limit=100: ${read} events at ${Math.round(feedPerSecond)} events/s (target ≥ 5,000)`);
console.log(
  `POST /v1/leads, 20 clients: one workspace ${one.toFixed(0)} req/s, 20 workspaces ${many.toFixed(0)} req/s, ` +
    `ratio ${((one / many) * 100).toFixed(1)} % (target ≥ 90 %)`,
);
console.log(
  `listen: a lead created through the SDK at the verifying receiver, 50 one at a time: p50 ` +
    `${percentile(listened.latencies, 0.5)} ms, p95 ${percentile(listened.latencies, 0.95)} ms (target p95 ≤ 2,000 ms); ` +
    `killed 30 s while 50 events happened: ${listened.forwarded} forwarded after the restart, ` +
    `${listened.exact ? "exactly those 50, in order: PASS" : "FAIL"}`,
);
const failed = plain.problems.length + killed.problems.length > 0 || !listened.exact;
process.exit(failed ? 1 : 0);
