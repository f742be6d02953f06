/**
 * Operators' CLI: `npm run admin -- <command> [options]`, JSON on stdout, against the server's database
 * (DATABASE_URL, or the embedded PostgreSQL under DATA_DIR: the running one, or started for the command, which
 * stderr then says, with where) and its rate-limit store (REDIS_URL, or PostgreSQL). DATA_DIR has the service's
 * default (`.data` in the folder it runs from: the repository's root for both `npm start` and `npm run admin`).
 *
 *   workspace:create --name N --owner-email E           → { "workspace_id", "user_id" }
 *   api-key:create --workspace W --name N --scopes a,b [--expires-at T]  → { "id", "key", "scopes" }
 *   limits:clear --limiter L --key K                    → { "cleared": bool }
 *   invite:create --email E [--ttl-days 14]             → { "email", "invite_code", "expires_at" }
 *   outbox:list [--email E] [--limit 10]                → [{ "to", "subject", "link", "created_at" }], newest first
 */
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import pino from "pino";
import { ConfigError, loadConfig } from "../config.ts";
import { openDatabase } from "../db/database.ts";
import { embeddedState } from "../db/embedded.ts";
import { migrate } from "../db/migrate.ts";
import { createLimiters } from "../rate-limit/limiters.ts";
import { CommandError, clearLimit, createApiKey, createInvite, createWorkspace, listMail } from "./admin-commands.ts";
import { startNotice } from "./embedded-state.ts";

const USAGE = `usage: admin <command> [options]
  workspace:create --name N --owner-email E
  api-key:create --workspace W --name N --scopes a,b [--expires-at T]
  limits:clear --limiter L --key K
  invite:create --email E [--ttl-days 14]
  outbox:list [--email E] [--limit 10]`;

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new CommandError(`--${name} is required\n${USAGE}`);
  return value.trim();
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: "string" },
      "owner-email": { type: "string" },
      workspace: { type: "string" },
      scopes: { type: "string" },
      "expires-at": { type: "string" },
      limiter: { type: "string" },
      key: { type: "string" },
      email: { type: "string" },
      "ttl-days": { type: "string" },
      limit: { type: "string" },
    },
    strict: true,
  });
  const config = loadConfig();
  // Logs go to stderr: stdout is the command's JSON answer.
  const logger = pino({ level: process.env.LOG_LEVEL ?? "warn" }, pino.destination(2));
  // Looked at before opening, which starts an embedded PostgreSQL when none runs there.
  const found = config.databaseUrl === undefined ? embeddedState(config.dataDir) : undefined;
  const db = await openDatabase(config, logger);
  const notice = found && startNotice(found, config.dataDir);
  if (notice) process.stderr.write(`${notice}\n`);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 2 })
    : undefined;
  try {
    await migrate(db.pool);
    let result: unknown;
    switch (command) {
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
        });
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
        throw new CommandError(USAGE);
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
  const message = error instanceof CommandError || error instanceof ConfigError ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  code = error instanceof CommandError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") ? 2 : 1;
}
// Exit explicitly, so that no library's exit hook decides the exit code.
process.exit(code);
