// The floors of the API benchmark: the least any Node server must do for the same work on this machine.
// `node floors.mjs <kind> [databaseUrl] [workspaceId] [poolSize]` prints its port, then serves:
//   hello-http     node:http, a fixed JSON body
//   hello-express  Express 5, the same
//   get            node:http + pg: the page query of GET /v1/leads, as a JSON list
//   post           node:http + pg: BEGIN, insert a lead, insert its event, COMMIT
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import express from "express";
import pg from "pg";

const [kind, databaseUrl, workspaceId, poolSize = "20"] = process.argv.slice(2);
// ULID-shaped ids (hex digits are all in Crockford's alphabet), as the service's CHECK constraints require.
const id = (prefix) => `${prefix}_01K${randomBytes(12).toString("hex").toUpperCase().slice(0, 23)}`;
const listen = (server) => server.listen(0, "127.0.0.1", () => console.log(server.address().port));

if (kind === "hello-express") {
  const app = express();
  app.get("/", (_req, res) => res.json({ hello: "world" }));
  const server = app.listen(0, "127.0.0.1", () => console.log(server.address().port));
} else {
  const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) }) : undefined;
  if (kind === "post") await pool.query("CREATE SEQUENCE IF NOT EXISTS floor_event_numbers");
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
      try {
        await client.query("BEGIN");
        const lead = await client.query(
          "INSERT INTO leads (id, workspace_id, email, name, status, tags) VALUES ($1, $2, $3, $4, 'new', $5) RETURNING *",
          [id("lead"), workspaceId, input.email, input.name, input.tags ?? []],
        );
        // The least a lead and its event cost: the event numbered in the write's transaction by a plain sequence (not
        // in commit order, which is what the service pays for), negative so that it never meets the service's numbers.
        await client.query(
          "INSERT INTO events (id, workspace_id, type, data, sequence) VALUES ($1, $2, 'lead.captured', $3, -nextval('floor_event_numbers'))",
          [id("evt"), workspaceId, JSON.stringify({ object: lead.rows[0] })],
        );
        await client.query("COMMIT");
        res.statusCode = 201;
        res.end(JSON.stringify(lead.rows[0]));
      } finally {
        client.release();
      }
    }),
  );
}
