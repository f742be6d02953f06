/**
 * A private redis-server (Debian's package) on a free port, for fault tests that kill, freeze and restart it empty
 * (`--save ""`, no append-only file: a restart loses every counter, as an unpersisted production Redis does).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { freePort } from "./private-postgres.ts";

export interface PrivateRedis {
  readonly url: string;
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

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = redisServerBinary();
  if (!binary) throw new Error("redis-server is not installed (apt-get install redis-server)");
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      child?.stdout?.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) {
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
    kill,
    start,
    freeze: () => child?.kill("SIGSTOP"),
    thaw: () => child?.kill("SIGCONT"),
    async stop() {
      child?.kill("SIGCONT");
      await kill();
    },
  };
}
