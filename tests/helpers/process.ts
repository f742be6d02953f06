/**
 * Runs the built server (`node server/dist/main.js`) as a child process, as `npm start` does, and reads the URL
 * it listens on from its JSON log.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly logs: Record<string, unknown>[];
  /** What the process (and the processes of its cluster) wrote to stderr so far. */
  stderr(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The environment without the machine's service settings: what a fresh machine has. */
export function bareEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["DATABASE_URL", "REDIS_URL", "SMTP_URL", "PORT", "DATA_DIR", "NODE_ENV"]) delete env[name];
  return { ...env, LOG_LEVEL: "info", ...extra };
}

export async function runServer(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
  /** Options of node itself, e.g. `--cpu-prof` (which NODE_OPTIONS does not accept). */
  nodeArgs: string[] = [],
  /** The entry point: this tree's build, or an unpacked release's. */
  main = "server/dist/main.js",
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, main, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "API listening" within ${timeoutMs} ms\n${stderr}`)),
      timeoutMs,
    );
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}\n${stderr}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      // Keep the first lines and the last ones (for shutdown checks); a busy server logs every request.
      if (logs.length > 1000) logs.splice(100, logs.length - 500);
      // Access lines are skipped unparsed: under a benchmark's load, parsing each one here took CPU from the server.
      if (line.includes('"msg":"request"')) return;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === "API listening" && typeof entry.url === "string") {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
  });
  return {
    child,
    url,
    logs,
    stderr: () => stderr,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, "exit");
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
