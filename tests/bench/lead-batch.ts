/**
 * Benchmark of loading leads as a pipeline does, on the machine's PostgreSQL, in one run, side by side:
 *   1. LEADS leads through `POST /v1/leads/batch` (100 an item, 1 % of items invalid), one call at a time with the
 *      SDK's `client.leads.upsert`, each call with its Idempotency-Key; then the same calls replayed with their keys
 *      (nothing written), and again with new keys (every valid item `unchanged`).
 *   2. The same number of leads through `POST /v1/leads`, one request each, CONCURRENCY at a time.
 * Prints leads per second of each and their ratio (target: batches ≥ 10× single creates), and checks the counts.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:lead-batch
 *   (LEADS=10000 CONCURRENCY=8 by default)
 */
import { createClient } from "@service/sdk";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { runServer } from "../helpers/process.ts";
import { benchDatabase } from "./database.ts";
import { benchServiceEnv } from "./service-env.ts";

const LEADS = Number(process.env.LEADS ?? 10_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);

const database = await benchDatabase();
const server = await runServer(["api"], benchServiceEnv(database.url), undefined, [...GC_FLAGS]);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
try {
  const keyOf = async (name: string) => {
    const workspace = await createWorkspace(pool, { name, ownerEmail: `${name}@example.com` });
    const { key } = await createApiKey(pool, { workspaceId: workspace.workspace_id, name, scopes: ["leads:write"] });
    return { key, workspaceId: workspace.workspace_id };
  };
  const count = async (workspaceId: string) =>
    Number((await pool.query("SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1", [workspaceId])).rows[0].n);
  const rows = Array.from({ length: LEADS }, (_, i) =>
    i % 100 === 37
      ? { external_id: `crm-${i}`, email: "not an address" }
      : { external_id: `crm-${i}`, name: `Lead ${i}`, email: `lead${i}@example.com` },
  );
  const valid = rows.filter((_, i) => i % 100 !== 37).length;

  // 1. Batches, with keys this run chooses so that the replay can send them again.
  const batches = await keyOf("batches");
  let call = 0;
  const keyed = (prefix: string) =>
    createClient({ apiKey: batches.key, baseUrl: server.url, idempotencyKey: () => `${prefix}-${call++}` });
  let started = performance.now();
  const first = await keyed("load").leads.upsert(rows, { matchOn: "external_id" });
  const batchSeconds = (performance.now() - started) / 1000;
  const failed = first.filter((item) => item.result === "failed");
  const named = failed.every((item) => item.problem?.errors?.[0]?.path.endsWith(".email"));
  const written = await count(batches.workspaceId);
  call = 0;
  started = performance.now();
  const replayed = await keyed("load").leads.upsert(rows, { matchOn: "external_id" });
  const replaySeconds = (performance.now() - started) / 1000;
  const same = JSON.stringify(replayed) === JSON.stringify(first);
  const afterReplay = await count(batches.workspaceId);
  call = 0;
  started = performance.now();
  const again = await keyed("again").leads.upsert(rows, { matchOn: "external_id" });
  const againSeconds = (performance.now() - started) / 1000;
  const unchanged = again.filter((item) => item.result === "unchanged").length;

  // 2. Single creates, CONCURRENCY at a time.
  const singles = await keyOf("singles");
  const client = createClient({ apiKey: singles.key, baseUrl: server.url });
  const good = rows.filter((_, i) => i % 100 !== 37);
  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < good.length) {
        const row = good[next++];
        if (row) await client.POST("/v1/leads", { body: row });
      }
    }),
  );
  const singleSeconds = (performance.now() - started) / 1000;
  const singleWritten = await count(singles.workspaceId);

  const perSecond = (n: number, seconds: number) => Math.round(n / seconds);
  const batchRate = perSecond(LEADS, batchSeconds);
  const singleRate = perSecond(good.length, singleSeconds);
  console.log(
    `batches: ${LEADS} items in ${LEADS / 100} calls, one at a time: ${batchSeconds.toFixed(1)} s, ${batchRate} leads/s; ` +
      `${written} written, ${failed.length} failed, each naming its field: ${named}`,
  );
  console.log(
    `  replayed with the same keys: ${replaySeconds.toFixed(1)} s, identical answers: ${same}, leads after: ${afterReplay}`,
  );
  console.log(`  again with new keys: ${againSeconds.toFixed(1)} s, unchanged: ${unchanged} of ${valid}`);
  console.log(
    `single creates: ${good.length} requests, ${CONCURRENCY} at a time: ${singleSeconds.toFixed(1)} s, ${singleRate} leads/s; ${singleWritten} written`,
  );
  const ratio = batchRate / singleRate;
  console.log(`batches / single creates: ${ratio.toFixed(1)}× (target ≥ 10×): ${ratio >= 10 ? "PASS" : "MISS"}`);
  const exact = written === valid && failed.length === LEADS - valid && named && same && afterReplay === valid;
  console.log(`counts: ${exact && unchanged === valid && singleWritten === valid ? "PASS" : "MISS"}`);
} finally {
  await pool.end();
  await server.stop("SIGKILL");
  await database.drop();
}
