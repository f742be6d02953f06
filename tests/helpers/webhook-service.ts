/**
 * The service as its own process (NODE_EXTRA_CA_CERTS must be set at start) on a fresh database, with a local HTTPS
 * receiver whose CA it trusts, for tests of deliveries end to end.
 */
import { type ClientOptions, createClient, type ServiceClient } from "@service/sdk";
import pg from "pg";
import { createApiKey, createWorkspace } from "../../server/src/cli/admin-commands.ts";
import { createTestDatabase } from "./database.ts";
import { bareEnv, runServer, type ServerProcess } from "./process.ts";
import { makeCertificates, type Receiver, startReceiver } from "./receiver.ts";
import { ALL_SCOPES } from "./sdk.ts";

export interface WebhookService {
  server: ServerProcess;
  receiver: Receiver;
  /** A pool on the service's database, for what a test sets or reads there directly. */
  pool: pg.Pool;
  databaseUrl: string;
  /** A new workspace and an SDK client with an API key of every scope (`options`: the client's, e.g. no retries). */
  newClient(options?: Partial<ClientOptions>): Promise<ServiceClient>;
  stop(): Promise<void>;
}

export async function startWebhookService(env: Record<string, string>): Promise<WebhookService> {
  const certificates = await makeCertificates();
  const receiver = await startReceiver(certificates);
  const database = await createTestDatabase();
  const server = await runServer(
    [],
    bareEnv({
      PORT: "0",
      DATABASE_URL: database.url,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      NODE_EXTRA_CA_CERTS: certificates.caFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      NODE_ENV: "test",
      ...env,
    }),
  );
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // Dropping the test database ends its connections: an idle client's error then is expected, not a failure.
  pool.on("error", () => undefined);
  return {
    server,
    receiver,
    pool,
    databaseUrl: database.url,
    async newClient(options = {}) {
      const workspace = await createWorkspace(pool, {
        name: "Hooks",
        ownerEmail: `hooks.${Date.now()}.${Math.random()}@example.com`,
      });
      const { key } = await createApiKey(pool, {
        workspaceId: workspace.workspace_id,
        name: "e2e",
        scopes: ALL_SCOPES,
      });
      return createClient({ apiKey: key, baseUrl: server.url, ...options });
    },
    async stop() {
      await pool.end();
      await server.stop();
      await receiver.close();
      await database.drop();
    },
  };
}
