/**
 * `admin rolling-restart`: restarts each server of a HAProxy backend in turn, carrying out rolling-restart.ts's
 * decisions through the runtime API (haproxy-socket.ts) and the operator's restart command. Each step is one line of
 * JSON on stdout; a roll that cannot go on throws, leaving the server it was restarting drained (out of rotation) and
 * every other server as it was.
 */
import { spawn } from "node:child_process";
import { CommandError } from "./admin-commands.ts";
import { runtimeApi } from "./haproxy-socket.ts";
import { parseServersState, parseStat, type ServerStat } from "./haproxy-state.ts";
import { decide, isDrained, type Phase, type RollLimits, refusal, restartCommand } from "./rolling-restart.ts";

/**
 * How often HAProxy's state is read while waiting: well under its checks' `inter` (1 s in docs/fleet-haproxy.cfg),
 * so that a host back in its checks is put back within a fraction of one.
 */
const POLL_INTERVAL_MS = 200;

interface RollOptions extends RollLimits {
  backend: string;
  /** The restart command's template, `{server}` and `{address}` filled in per server. */
  restart: string;
}

/** Everything the roll does to the world, in one place: the steps above it only decide. */
interface RollIo {
  /** One runtime API command; resolves with HAProxy's answer. */
  send(command: string): Promise<string>;
  /** Runs a shell command, killed after `timeoutMs`; resolves with its exit code (null when killed). */
  run(command: string, timeoutMs: number): Promise<number | null>;
  print(line: Record<string, unknown>): void;
  now(): number;
  sleep(ms: number): Promise<void>;
}

export async function rollingRestart(options: RollOptions, io: RollIo): Promise<void> {
  const { backend } = options;
  const servers = parseServersState(await io.send(`show servers state ${backend}`));
  if (servers.length === 0) throw new CommandError(`the backend ${backend} has no server`);
  // Every command made before any server is touched: a bad template stops the roll with nothing changed.
  const commands = servers.map((server) => restartCommand(options.restart, server));
  const started = io.now();
  io.print({ step: "start", backend, servers: servers.map((server) => server.name) });
  const restarted: string[] = [];
  for (const [index, server] of servers.entries()) {
    await restartOne(server.name, commands[index] as string, options, io, restarted);
    restarted.push(server.name);
  }
  io.print({ step: "done", backend, restarted, ms: io.now() - started });
}

async function restartOne(name: string, command: string, options: RollOptions, io: RollIo, restarted: string[]) {
  const { backend } = options;
  const stats = async () => parseStat(await io.send(`show stat ${backend} 4 -1`));
  /** How the server is left when the roll stops. */
  const LEFT = {
    untouched: `${name} was not touched`,
    drained: `${name} is left drained, out of rotation (\`set server ${backend}/${name} state ready\` on the runtime API puts it back)`,
    ready: `${name} is left in rotation, HAProxy's checks deciding`,
    changed: `${name} is left as HAProxy shows it`,
  };
  const stop = (reason: string, left: keyof typeof LEFT) => {
    const done = restarted.length > 0 ? `restarted before it: ${restarted.join(", ")}` : "none restarted before it";
    return new CommandError(`${reason}. The roll stops: ${LEFT[left]}; ${done}; the other servers are as they were.`);
  };
  // A server between two states (a check failed on a busy balancer) is waited for, within the deadline.
  const since = io.now();
  let said = "";
  for (let refused = refusal(name, await stats()); refused; refused = refusal(name, await stats())) {
    if (!refused.settling || io.now() - since >= options.backMs) throw stop(refused.reason, "untouched");
    if (refused.reason !== said) io.print({ server: name, step: "waiting", for: refused.reason });
    said = refused.reason;
    await io.sleep(POLL_INTERVAL_MS);
  }
  const set = async (state: "drain" | "ready") => {
    const answer = (await io.send(`set server ${backend}/${name} state ${state}`)).trim();
    // Success is an empty answer; anything else is HAProxy's refusal ("Permission denied." below `level admin`).
    if (answer !== "")
      throw stop(
        `HAProxy refused "set server ${backend}/${name} state ${state}": ${answer}`,
        state === "drain" ? "untouched" : "drained",
      );
  };
  await set("drain");
  const out = io.now();
  let stepStarted = out;
  const step = (fields: Record<string, unknown>) => {
    io.print({ server: name, ...fields, ms: io.now() - stepStarted });
    stepStarted = io.now();
  };
  let phase: Phase = { step: "draining", since: out };
  for (;;) {
    const seen: ServerStat | undefined = (await stats()).find((stat) => stat.name === name);
    if (!seen) throw stop(`${name} is no longer in the backend ${backend}`, "drained");
    const move = decide(phase, seen, io.now(), options);
    switch (move.do) {
      case "wait":
        phase = move.phase;
        await io.sleep(POLL_INTERVAL_MS);
        break;
      case "restart": {
        step({ step: "drained", sessions_left: move.sessionsLeft });
        const code = await io.run(command, options.backMs);
        if (code !== 0) {
          const how = code === null ? `did not finish within ${options.backMs / 1000} s` : `exited with ${code}`;
          throw stop(`the restart command of ${name} ${how}: ${command}`, "drained");
        }
        step({ step: "restarted" });
        phase = move.next;
        break;
      }
      case "ready":
        step({ step: "back", check: seen.check });
        await set("ready");
        phase = move.next;
        break;
      case "done":
        step({ step: "in_rotation", out_of_rotation_ms: io.now() - out });
        return;
      case "fail":
        throw stop(move.reason, phase.step === "readying" ? "ready" : isDrained(seen.status) ? "drained" : "changed");
    }
  }
}

/** The roll's world for the admin CLI: the runtime API at `socket`, `sh -c`, stdout, the clock. */
export function cliIo(socket: string): RollIo {
  return {
    send: runtimeApi(socket),
    run: (command, timeoutMs) =>
      new Promise((resolve, reject) => {
        // Its output goes to stderr: stdout carries the roll's JSON lines.
        const child = spawn("sh", ["-c", command], {
          stdio: ["ignore", process.stderr, process.stderr],
          timeout: timeoutMs,
        });
        child.on("error", reject);
        child.on("exit", (code) => resolve(code));
      }),
    print: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}
