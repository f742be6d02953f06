/**
 * Operators' CLI: `npm run admin -- <command> [options]`, against the server's database (DATABASE_URL, or the
 * embedded PostgreSQL under DATA_DIR: the running one, or started for the command, which stderr then says, with
 * where) and its rate-limit store (REDIS_URL, or PostgreSQL). DATA_DIR has the service's default (`.data` in the
 * folder it runs from: the repository's root for both `npm start` and `npm run admin`).
 *
 * A command's answer is one line of JSON on stdout. `--help` (or no command) prints the usage below, and a failure
 * its message, in plain text on stderr: exit 2 for a usage error, 1 for any other failure.
 */
import { parseArgs } from "node:util";
import pino from "pino";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/database.ts";
import { embeddedState } from "../db/embedded.ts";
import { migrate } from "../db/migrate.ts";
import { redisClient } from "../db/redis-client.ts";
import { createLimiters } from "../rate-limit/limiters.ts";
import {
  CommandError,
  clearLimit,
  createApiKey,
  createInvite,
  createWorkspace,
  knownScopes,
  listMail,
  listWorkspaces,
  revokeApiKey,
} from "./admin-commands.ts";
import { startNotice } from "./embedded-state.ts";
import { cliIo, rollingRestart } from "./rolling-restart-run.ts";

const USAGE = `usage: npm run admin -- <command> [options]

Each command prints its answer as one line of JSON on stdout.

  workspace:list [--limit 100]
      The workspaces, newest first: [{ workspace_id, name, owner_email, created_at }].
  workspace:create --name N --owner-email E
      A workspace and its owner (verified, no password: they set one through "forgot"): { workspace_id, user_id }.
  api-key:create --workspace ws_… --name N --scopes a,b [--mode live|test] [--expires-at 2027-01-01T00:00:00Z]
      An API key of that workspace (from workspace:list), shown once: { id, key, scopes, livemode }. --mode test
      makes a sk_test_ key, which reaches the workspace's test data only (default: live).
      Scopes: <scopes>.
  api-key:revoke --id key_…
      Revokes a key at once, on every API process: { id, revoked_at }.
  limits:clear --limiter L --key K
      Clears one limiter's counter for one key: { cleared }. The key each limiter counts by:
        register-ip, forgot-ip, resend-ip, login-ip   a client address: an IPv4 address (192.0.2.7), or an IPv6
                                                      address, counted by its /64 (2001:db8:1:2::/64 or any
                                                      address in it)
        register-email, forgot-email, resend-email,   an e-mail address, in any case (Ada@Example.com)
        resend-cooldown, login-email
        api-key                                       an API key's id (key_…, from the console or api-key:create)
        session                                       a user's id (usr_…, from workspace:create)
  invite:create --email E [--ttl-days 14]
      An invite code for one address (the closed beta): { email, invite_code, expires_at }.
  outbox:list [--email E] [--limit 10]
      The e-mails written without SMTP_URL, newest first: [{ to, subject, link, created_at }].
  rolling-restart --haproxy SOCKET --backend B --restart 'COMMAND {server}' [--drain-seconds 30]
                  [--timeout-seconds 120]
      Restarts each server of HAProxy's backend B in turn, through its runtime API (SOCKET: the path or
      ipv4@host:port of a "stats socket … level admin" line): takes it out of rotation (drain) until its sessions
      end, runs COMMAND ({server}: its name in HAProxy, {address}: its address; e.g. 'ssh {address} sudo systemctl
      restart service-api'), waits until HAProxy's own checks have it back, puts it back in rotation, then the next.
      One line of JSON per step. A host not back within --timeout-seconds of its COMMAND stops the roll, left out of
      rotation, the others in it. Needs no database.

Settings (rolling-restart needs none): DATABASE_URL (or the embedded PostgreSQL under DATA_DIR), REDIS_URL (the
limiters' store, if the service uses one), LOG_LEVEL (logs go to stderr).`;

function usage(): string {
  return USAGE.replace("<scopes>", knownScopes().join(", "));
}

/** A usage error: printed with the usage, exit code 2. */
class UsageError extends CommandError {}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value.trim();
}

function seconds(values: Record<string, unknown>, name: string, fallback: number): number {
  const value = values[name] === undefined ? fallback : Number(values[name]);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a whole number of seconds`);
  return value;
}

const COMMANDS = [
  "workspace:list",
  "workspace:create",
  "api-key:create",
  "api-key:revoke",
  "limits:clear",
  "invite:create",
  "outbox:list",
  "rolling-restart",
];

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  if (
    command === undefined ||
    command === "--help" ||
    command === "-h" ||
    command === "help" ||
    rest.includes("--help")
  ) {
    process.stderr.write(`${usage()}\n`);
    return 0;
  }
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command ${command}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: "string" },
      "owner-email": { type: "string" },
      workspace: { type: "string" },
      scopes: { type: "string" },
      "expires-at": { type: "string" },
      mode: { type: "string" },
      limiter: { type: "string" },
      key: { type: "string" },
      email: { type: "string" },
      "ttl-days": { type: "string" },
      limit: { type: "string" },
      id: { type: "string" },
      haproxy: { type: "string" },
      backend: { type: "string" },
      restart: { type: "string" },
      "drain-seconds": { type: "string" },
      "timeout-seconds": { type: "string" },
    },
    strict: true,
  });
  // Before any setting is read: the roll talks to the balancer and the hosts, never to the database.
  if (command === "rolling-restart") {
    await rollingRestart(
      {
        backend: required(values, "backend"),
        restart: required(values, "restart"),
        drainMs: seconds(values, "drain-seconds", 30) * 1000,
        backMs: seconds(values, "timeout-seconds", 120) * 1000,
      },
      cliIo(required(values, "haproxy")),
    );
    return 0;
  }
  const config = loadConfig();
  // Logs go to stderr: stdout is the command's JSON answer.
  const logger = pino({ level: process.env.LOG_LEVEL ?? "warn" }, pino.destination(2));
  // Looked at before opening, which starts an embedded PostgreSQL when none runs there.
  const found = config.databaseUrl === undefined ? embeddedState(config.dataDir) : undefined;
  const db = await openDatabase(config, logger);
  const notice = found && startNotice(found, config.dataDir);
  if (notice) process.stderr.write(`${notice}\n`);
  const redis = redisClient(config, { enableOfflineQueue: true, maxRetriesPerRequest: 2 });
  try {
    await migrate(db.pool);
    let result: unknown;
    switch (command) {
      case "workspace:list":
        result = await listWorkspaces(db.pool, { limit: Number(values.limit ?? 100) });
        break;
      case "workspace:create":
        result = await createWorkspace(db.pool, {
          name: required(values, "name"),
          ownerEmail: required(values, "owner-email"),
        });
        break;
      case "api-key:create":
        result = await createApiKey(db.pool, {
          workspaceId: required(values, "workspace"),
          name: required(values, "name"),
          scopes: required(values, "scopes")
            .split(",")
            .map((scope) => scope.trim())
            .filter(Boolean),
          ...(values["expires-at"] ? { expiresAt: values["expires-at"] } : {}),
          ...(values.mode ? { mode: values.mode } : {}),
        });
        break;
      case "api-key:revoke":
        result = await revokeApiKey(db.pool, { id: required(values, "id") });
        break;
      case "limits:clear": {
        const limiters = createLimiters({ redis, pool: db.pool, config, logger });
        result = await clearLimit(limiters, { limiter: required(values, "limiter"), key: required(values, "key") });
        break;
      }
      case "invite:create":
        result = await createInvite(db.pool, {
          email: required(values, "email"),
          ttlDays: Number(values["ttl-days"] ?? 14),
        });
        break;
      case "outbox:list":
        result = await listMail(db.pool, {
          limit: Number(values.limit ?? 10),
          ...(typeof values.email === "string" ? { email: values.email } : {}),
        });
        break;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    redis?.disconnect();
    await db.close();
  }
}

let code: number;
try {
  code = await main();
} catch (error) {
  const usageError = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(usageError ? `admin: ${message}\n\n${usage()}\n` : `admin: ${message}\n`);
  code = usageError ? 2 : 1;
}
// Exit explicitly, so that no library's exit hook decides the exit code.
process.exit(code);
