/**
 * A private redis-server (Debian's package) on a free port, for fault tests that kill, freeze and restart it empty
 * (`--save ""`, no append-only file: a restart loses every counter, as an unpersisted production Redis does).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./private-postgres.ts";

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  kill(): Promise<void>;
  start(): Promise<void>;
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/** The redis-server binary, or undefined when the machine has none (`.ci/run` installs it). */
export function redisServerBinary(): string | undefined {
  try {
    return execFileSync("sh", ["-c", "command -v redis-server"]).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `args` are more of redis-server's arguments (`--replicaof 127.0.0.1 6380`); `config`, a file to start from (a
 * sentinel's, which it rewrites), with `ready` the line that says it serves.
 */
export async function startPrivateRedis(
  options: { args?: string[]; config?: string; ready?: string } = {},
): Promise<PrivateRedis> {
  const binary = redisServerBinary();
  if (!binary) throw new Error("redis-server is not installed (apt-get install redis-server)");
  const port = await freePort();
  const ready = options.ready ?? "Ready to accept connections";
  // A replica's full sync writes its file here, not in the folder the tests run from.
  const dir = mkdtempSync(join(tmpdir(), "private-redis-"));
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = [
      ...(options.config ? [options.config] : []),
      ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      ...(options.args ?? []),
    ];
    child = spawn(binary, args, { stdio: ["ignore", "pipe", "ignore"] });
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      child?.stdout?.on("data", (chunk) => {
        output += chunk;
        if (output.includes(ready)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  };
  const kill = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const done = once(child, "exit");
    child.kill("SIGKILL");
    await done;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    freeze: () => child?.kill("SIGSTOP"),
    thaw: () => child?.kill("SIGCONT"),
    async stop() {
      child?.kill("SIGCONT");
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
