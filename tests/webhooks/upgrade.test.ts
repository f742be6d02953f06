/**
 * The upgrade from pg-boss 10, whose schema cannot be migrated in place: a database left by the previous version, with
 * account e-mails waiting in pg-boss 10 and deliveries due in their own table (the queue they were then), is started
 * by this version; every waiting item is done once, and the old schema is gone.
 */
import pg from "pg";
import PgBoss10 from "pg-boss-10";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../server/src/db/migrate.ts";
import { AUTH_QUEUES, type RegisterJob } from "../../server/src/domain/auth/auth.service.ts";
import { newWebhookSecret } from "../../server/src/domain/webhooks/signature.ts";
import { newId } from "../../server/src/lib/ids.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";
import { makeCertificates, type Receiver, startReceiver } from "../helpers/receiver.ts";

/** The migrations the previous version had applied. */
const PREVIOUS_VERSION_MIGRATIONS = 8;
const REGISTRATIONS = ["first@example.com", "second@example.com", "third@example.com"];

let database: TestDatabase;
let pool: pg.Pool;
let receiver: Receiver;
let env: NodeJS.ProcessEnv;
const servers: ServerProcess[] = [];
/** The deliveries that were due: each must reach the receiver once. */
const due: string[] = [];
let settled: string;

async function insertDelivery(webhookId: string, workspaceId: string, state: string): Promise<string> {
  const id = newId("delivery");
  const eventId = newId("event");
  await pool.query(
    `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, event_type, payload, status, attempt_count,
                             next_attempt_at, leased_until)
     VALUES ($1, $2, $3, $4, 'lead.captured', $5, ${state})`,
    [id, workspaceId, webhookId, eventId, JSON.stringify({ id: eventId, type: "lead.captured" })],
  );
  return id;
}

let oldWorkspace: string;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on("error", () => undefined);
  await migrate(pool, loadMigrations().slice(0, PREVIOUS_VERSION_MIGRATIONS));

  // pg-boss 10, as the previous version ran it: its schema, its queues, e-mails waiting.
  const old = new PgBoss10({ connectionString: database.url, schema: "pgboss", supervise: false, schedule: false });
  await old.start();
  for (const name of Object.values(AUTH_QUEUES)) await old.createQueue(name);
  for (const email of REGISTRATIONS) {
    const job: RegisterJob = { email, name: null, passwordHash: "scrypt$not-used", inviteCodeHash: null };
    expect(await old.send(AUTH_QUEUES.register, job)).not.toBeNull();
  }
  await old.stop({ graceful: false, wait: true });

  // Deliveries as the previous version queued them: due now, a retry come due, one leased when it stopped, one done.
  const certificates = await makeCertificates();
  receiver = await startReceiver(certificates);
  // The workspace as the previous version wrote it (no test scope: migration 0018 makes it).
  const workspaceId = newId("workspace");
  oldWorkspace = workspaceId;
  await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Old')", [workspaceId]);
  // The subscription as the previous version wrote it (its columns, not this version's).
  const webhookId = newId("webhook");
  await pool.query("INSERT INTO webhooks (id, workspace_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)", [
    webhookId,
    workspaceId,
    `${receiver.url}/old`,
    ["lead.captured"],
    newWebhookSecret(),
  ]);
  due.push(await insertDelivery(webhookId, workspaceId, "'pending', 0, now(), NULL"));
  due.push(await insertDelivery(webhookId, workspaceId, "'pending', 1, now() - interval '1 minute', NULL"));
  due.push(await insertDelivery(webhookId, workspaceId, "'pending', 0, now(), now() + interval '10 seconds'"));
  settled = await insertDelivery(webhookId, workspaceId, "'succeeded', 1, NULL, NULL");

  env = bareEnv({
    PORT: "0",
    DATABASE_URL: database.url,
    NODE_EXTRA_CA_CERTS: certificates.caFile,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    NODE_ENV: "test",
  });
});

afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
  await pool?.end();
  await receiver?.close();
  await database?.drop();
});

const outbox = async () =>
  (await pool.query<{ to_address: string }>("SELECT to_address FROM outbox ORDER BY to_address")).rows.map(
    (row) => row.to_address,
  );
const sent = () => receiver.received.filter((request) => request.path === "/old");

describe("the upgrade from pg-boss 10", () => {
  it("does every waiting e-mail and due delivery once, and drops the old schema", { timeout: 60_000 }, async () => {
    servers.push(await runServer([], env));
    await expect.poll(outbox, { timeout: 20_000 }).toEqual([...REGISTRATIONS].sort());
    await expect.poll(() => sent().length, { timeout: 20_000 }).toBe(due.length);
    const { rows } = await pool.query("SELECT to_regnamespace('pgboss') IS NULL AS gone");
    expect(rows[0].gone).toBe(true);
    // The workspace of the previous version got its test mode (migration 0018).
    const scopes = await pool.query("SELECT id, live_workspace_id FROM workspaces ORDER BY id");
    expect(scopes.rows).toEqual([
      { id: oldWorkspace, live_workspace_id: null },
      { id: `${oldWorkspace}_test`, live_workspace_id: oldWorkspace },
    ]);

    // A second start (a restart, or another process) moves nothing again.
    await servers[0]?.stop();
    servers.push(await runServer([], env));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await outbox()).toEqual([...REGISTRATIONS].sort());
    const deliveries = sent().map((request) => request.headers["x-service-delivery"]);
    expect(deliveries.sort()).toEqual([...due].sort());
    expect(deliveries).not.toContain(settled);
    const { rows: log } = await pool.query(
      "SELECT id, status, attempt_count FROM deliveries WHERE id = ANY($1) ORDER BY id",
      [due],
    );
    expect(log.every((row) => row.status === "succeeded")).toBe(true);
  });
});
