/**
 * Benchmark of a reset of the test data (issue 42: 10,000 objects within 5 s), on the machine's PostgreSQL, with the
 * service's API and worker in one process as `npm start` runs them. Per round: OBJECTS test leads made through
 * `POST /v1/leads/batch` (each with its `lead.captured` event), a live writer creating leads one at a time all along;
 * then `POST /v1/test-data/reset`, polled until it succeeded. Prints, side by side, the reset's time against the
 * target, and the live writes' p50/p99/max before and during the reset (the reset holds the sequencer's lock for its
 * last step only, and a live write answers once its events are numbered). Checks the counts, and that the live leads and events made before the reset are byte for byte as they were.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:test-data-reset
 *   (OBJECTS=10000 ROUNDS=3 by default)
 */
import { createClient, type ServiceClient } from "@service/sdk";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { benchServiceEnv } from "./service-env.ts";

const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const TARGET_SECONDS = 5;

const database = await benchDatabase();
const server = await runServer([], benchServiceEnv(database.url), undefined, [...GC_FLAGS]);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Live writes, one at a time, until `stop()`: each one's latency, in the window it was made in. */
function liveWriter(client: ServiceClient) {
  const latencies: { at: number; ms: number }[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      const answer = await client.POST("/v1/leads", { body: { email: `live.${Date.now()}.${i}@example.com` } });
      if (answer.error) throw new Error(`live write failed: ${JSON.stringify(answer.error)}`);
      latencies.push({ at: started, ms: performance.now() - started });
    }
  })();
  return {
    between: (from: number, to: number) => latencies.filter((l) => l.at >= from && l.at < to).map((l) => l.ms),
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * The workspace's live rows as text, byte for byte, in a stable order: every lead and event up to `through` (the newest
 * lead id when read first; the live writer only adds rows, and never changes one), so that equal before and after the
 * reset means untouched.
 */
async function liveRows(
  workspaceId: string,
  through?: string,
): Promise<{ newest: string; sum: string; count: number }> {
  const { rows } = await pool.query<{ newest: string; sum: string; count: number }>(
    `WITH l AS (SELECT t.id, t::text AS row FROM leads t WHERE t.workspace_id = $1 AND ($2::text IS NULL OR t.id <= $2)),
          e AS (SELECT t::text AS row FROM events t WHERE t.workspace_id = $1
                   AND ($2::text IS NULL OR t.data->'object'->>'id' <= $2))
     SELECT (SELECT max(id) FROM l) AS newest, (SELECT count(*)::int FROM l) AS count,
            md5((SELECT coalesce(string_agg(row, '|' ORDER BY row), '') FROM l) ||
                (SELECT coalesce(string_agg(row, '|' ORDER BY row), '') FROM e)) AS sum`,
    [workspaceId, through ?? null],
  );
  return rows[0] as { newest: string; sum: string; count: number };
}

try {
  const workspace = await createWorkspace(pool, { name: "Reset", ownerEmail: "reset@example.com" });
  const scopes = ["leads:read", "leads:write", "events:read", "test_data:write"];
  const made = async (mode: "live" | "test") =>
    createClient({
      apiKey: (await createApiKey(pool, { workspaceId: workspace.workspace_id, name: mode, scopes, mode })).key,
      baseUrl: server.url,
    });
  const live = await made("live");
  const test = await made("test");
  console.log(`reset of ${OBJECTS.toLocaleString("en")} test leads with their events, ${ROUNDS} rounds`);
  console.log("round | reset | target | live write p50 / p99 / max before | during");
  const seconds: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const rows = Array.from({ length: OBJECTS }, (_, i) => ({ external_id: `r${round}-${i}`, name: `Test ${i}` }));
    await test.leads.upsert(rows, { matchOn: "external_id" });
    const writer = liveWriter(live);
    const before = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // Up to the newest live lead now, once its event is surely numbered (a write answers after its pass).
    const { newest } = await liveRows(workspace.workspace_id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const liveBefore = await liveRows(workspace.workspace_id, newest);
    const started = performance.now();
    const accepted = await test.POST("/v1/test-data/reset", {});
    if (!accepted.data) throw new Error(`reset refused: ${JSON.stringify(accepted.error)}`);
    let reset = accepted.data;
    while (reset.status === "pending" || reset.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const read = await test.GET("/v1/test-data/resets/{reset_id}", { params: { path: { reset_id: reset.id } } });
      if (!read.data) throw new Error(`reset unreadable: ${JSON.stringify(read.error)}`);
      reset = read.data;
    }
    const took = (performance.now() - started) / 1000;
    const ended = performance.now();
    await writer.stop();
    if (reset.status !== "succeeded" || reset.deleted?.leads !== OBJECTS || reset.deleted.events !== OBJECTS) {
      throw new Error(`reset did not delete what it should: ${JSON.stringify(reset)}`);
    }
    const left = await pool.query("SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1", [
      `${workspace.workspace_id}_test`,
    ]);
    if (left.rows[0].n !== 0) throw new Error(`${left.rows[0].n} test leads left`);
    const liveAfter = await liveRows(workspace.workspace_id, newest);
    if (liveBefore.count === 0 || liveAfter.sum !== liveBefore.sum) throw new Error("the live data changed");
    seconds.push(took);
    const a = writer.between(before, started);
    const b = writer.between(started, ended);
    console.log(
      `${round} | ${took.toFixed(2)} s | ≤ ${TARGET_SECONDS} s (${((took / TARGET_SECONDS) * 100).toFixed(0)} %) | ` +
        `${ms(quantile(a, 0.5))} / ${ms(quantile(a, 0.99))} / ${ms(Math.max(...a))} | ` +
        `${ms(quantile(b, 0.5))} / ${ms(quantile(b, 0.99))} / ${ms(Math.max(...b))} (${b.length} writes)`,
    );
  }
  console.log(`median reset: ${quantile(seconds, 0.5).toFixed(2)} s against ${TARGET_SECONDS} s`);
} finally {
  await pool.end();
  await server.stop();
  await database.drop();
}
