// The floors of the API benchmark: the least any Node server must do for the same work on this machine.
// `node floors.mjs <kind> [databaseUrl] [workspaceId] [poolSize]` prints its port, then serves:
//   hello-http     node:http, a fixed JSON body
//   hello-express  Express 5, the same
//   get            node:http + pg: the page query of GET /v1/leads, as a JSON list
//   post           node:http + pg: BEGIN, insert a lead, insert its event into an outbox, COMMIT, then wait for a pass
//                  (shared by every write that committed meanwhile) that numbers the outbox's events in one statement
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import express from "express";
import pg from "pg";

const [kind, databaseUrl, workspaceId, poolSize = "20"] = process.argv.slice(2);
// ULID-shaped ids (hex digits are all in Crockford's alphabet), as the service's CHECK constraints require.
const id = (prefix) => `${prefix}_01K${randomBytes(12).toString("hex").toUpperCase().slice(0, 23)}`;
// Idle connections close after a second: the floors and the service take turns, and together they would hold more
// connections than the machine's PostgreSQL allows (100).
const pool = databaseUrl
  ? new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize), idleTimeoutMillis: 1_000 })
  : undefined;
/** The floor's outbox and counters; its events are numbered below zero, so that they never meet the service's. */
const FLOOR_TABLES = `
  CREATE TABLE IF NOT EXISTS floor_outbox (serial bigserial PRIMARY KEY, id text, workspace_id text, data jsonb);
  CREATE TABLE IF NOT EXISTS floor_sequences (workspace_id text PRIMARY KEY, last bigint NOT NULL)`;

/** One pass: the committed outbox rows numbered per workspace in one statement, under a lock that serialises passes. */
const PASS = `BEGIN; SELECT pg_advisory_xact_lock(917);
  WITH taken AS (DELETE FROM floor_outbox RETURNING *),
  numbered AS (
    SELECT t.*, row_number() OVER (PARTITION BY t.workspace_id ORDER BY t.serial) AS n,
           count(*) OVER (PARTITION BY t.workspace_id) AS c
      FROM taken t),
  counters AS (
    INSERT INTO floor_sequences AS s (workspace_id, last) SELECT DISTINCT workspace_id, c FROM numbered
    ON CONFLICT (workspace_id) DO UPDATE SET last = s.last + EXCLUDED.last RETURNING s.workspace_id, s.last)
  INSERT INTO events (id, workspace_id, type, data, sequence)
  SELECT nb.id, nb.workspace_id, 'lead.captured', nb.data, -(k.last - nb.c + nb.n)
    FROM numbered nb JOIN counters k USING (workspace_id);
  COMMIT`;

/** The writers waiting for the next pass; a pass in flight may have read before their commit, so they wait for the next. */
let waiting = [];
let running;
function pass() {
  const served = waiting;
  waiting = [];
  running = pool
    .query(PASS)
    .catch((error) => console.error(error))
    .finally(() => {
      for (const resolve of served) resolve();
      running = undefined;
      if (waiting.length > 0) pass();
    });
}
function settle() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!running) pass();
  });
}

const listen = (server) => server.listen(0, "127.0.0.1", () => console.log(server.address().port));

if (kind === "hello-express") {
  const app = express();
  app.get("/", (_req, res) => res.json({ hello: "world" }));
  const server = app.listen(0, "127.0.0.1", () => console.log(server.address().port));
} else {
  if (kind === "post") await pool.query(FLOOR_TABLES);
  listen(
    createServer(async (req, res) => {
      res.setHeader("content-type", "application/json");
      if (kind === "hello-http") return res.end('{"hello":"world"}');
      if (kind === "get") {
        const { rows } = await pool.query({
          name: "page",
          text: "SELECT * FROM leads WHERE workspace_id = $1 ORDER BY id DESC LIMIT 21",
          values: [workspaceId],
        });
        return res.end(JSON.stringify({ object: "list", data: rows.slice(0, 20), has_more: rows.length > 20 }));
      }
      let body = "";
      for await (const chunk of req) body += chunk;
      const input = JSON.parse(body);
      const client = await pool.connect();
      let lead;
      try {
        await client.query("BEGIN");
        lead = await client.query(
          "INSERT INTO leads (id, workspace_id, email, name, status, tags) VALUES ($1, $2, $3, $4, 'new', $5) RETURNING *",
          [id("lead"), workspaceId, input.email, input.name, input.tags ?? []],
        );
        // The least the contract's change stream costs a write: its event into an outbox in the write's transaction,
        // numbered after the commit by a pass that every write committed meanwhile shares, answered once numbered.
        await client.query("INSERT INTO floor_outbox (id, workspace_id, data) VALUES ($1, $2, $3)", [
          id("evt"),
          workspaceId,
          JSON.stringify({ object: lead.rows[0] }),
        ]);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      await settle();
      res.statusCode = 201;
      res.end(JSON.stringify(lead.rows[0]));
    }),
  );
}
