/**
 * A private redis-server (Debian's package) on a free port, for fault tests that kill, freeze and restart it empty
 * (`--save ""`, no append-only file: a restart loses every counter, as an unpersisted production Redis does).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./free-port.ts";

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

/**
 * A sentinel (`redis-server --sentinel`) watching `primary` as "primary", alone in its quorum, down after 1 s without
 * an answer; resolves once it has learnt of the primary's replicas (`replicas` of them).
 */
export async function startPrivateSentinel(primary: PrivateRedis, replicas = 1): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), "private-sentinel-"));
  const config = join(dir, "sentinel.conf");
  writeFileSync(
    config,
    [
      `sentinel monitor primary 127.0.0.1 ${primary.port} 1`,
      "sentinel down-after-milliseconds primary 1000",
      "sentinel failover-timeout primary 5000",
      "",
    ].join("\n"),
  );
  const sentinel = await startPrivateRedis({ config, args: ["--sentinel"], ready: "+monitor master primary" });
  const ask = new Redis(sentinel.port, "127.0.0.1");
  try {
    for (let i = 0; i < 100; i++) {
      if (((await ask.call("SENTINEL", "REPLICAS", "primary")) as unknown[]).length >= replicas) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    ask.disconnect();
  }
  return {
    ...sentinel,
    async stop() {
      await sentinel.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
