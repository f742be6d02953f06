/**
 * `admin rolling-restart` (server/dist/cli/admin.js) against a real HAProxy on this machine, through a unix runtime
 * socket: two backends whose /ready answers 503 while a file names them down, and a "restart" command that makes it
 * so for a second. The fleet test does the same with real API hosts under load (tests/fleet); this one shows the
 * order of the steps and where a roll that cannot go on leaves each server, in seconds and without root.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runtimeApi } from "../../server/src/cli/haproxy-socket.ts";
import { parseServersState, parseStat } from "../../server/src/cli/haproxy-state.ts";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const haproxyInstalled = spawnSync("sh", ["-c", "command -v haproxy"]).status === 0;
// In CI a missing HAProxy is a failure (.ci/run installs it); elsewhere this says why it skips.
const runnable = haproxyInstalled || process.env.CI === "true";
if (!runnable) console.warn("skipping the rolling restart's tests: install haproxy (apt-get install haproxy)");

describe.skipIf(!runnable)("admin rolling-restart behind HAProxy", () => {
  const dir = mkdtempSync(join(tmpdir(), "rolling-"));
  const socket = join(dir, "admin.sock");
  const send = runtimeApi(socket);
  const servers: Server[] = [];
  let haproxy: ChildProcess;
  /** A "restart": the host answers /ready 503 for a second, as an API host does from SIGTERM until it is back. */
  const RESTART = `echo {server} >> ${dir}/restarts; touch ${dir}/{server}.down; sleep 1; rm ${dir}/{server}.down`;

  const admin = async (...args: string[]) => {
    // An unreachable database: the roll must not need one.
    const env = { ...process.env, DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" };
    const all = ["server/dist/cli/admin.js", "rolling-restart", "--haproxy", socket, "--backend", "api_hosts", ...args];
    try {
      const { stdout, stderr } = await run(process.execPath, all, { env });
      return {
        code: 0,
        lines: stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line)),
        stderr,
      };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      const lines = failure.stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      return { code: failure.code, lines, stderr: failure.stderr };
    }
  };
  const statuses = async () => parseStat(await send("show stat api_hosts 4 -1")).map((s) => s.status);
  const untilAllUp = async () => {
    while ((await statuses()).some((status) => status !== "UP")) await sleep(50);
  };

  beforeAll(async () => {
    const lines = [];
    for (const name of ["api1", "api2"]) {
      const server = createServer((request, response) => {
        response.statusCode = request.url === "/ready" && existsSync(join(dir, `${name}.down`)) ? 503 : 200;
        response.end();
      });
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      servers.push(server);
      lines.push(`  server ${name} 127.0.0.1:${(server.address() as AddressInfo).port} check`);
    }
    const config = join(dir, "haproxy.cfg");
    writeFileSync(
      config,
      [
        "global",
        `  stats socket ${socket} mode 600 level admin`,
        "defaults",
        "  mode http",
        "  timeout connect 1s",
        "  timeout client 10s",
        "  timeout server 10s",
        "backend api_hosts",
        "  option httpchk GET /ready",
        "  http-check expect status 200",
        // A check waits up to 2 s for its answer, as the shipped configuration's `timeout check` lets it: with only
        // `inter` to answer in, a loaded machine's slow answer counted as a failed check and took a server out.
        "  timeout check 2s",
        "  default-server inter 100ms fall 2 rise 2",
        ...lines,
        "",
      ].join("\n"),
    );
    haproxy = spawn("haproxy", ["-db", "-f", config], { stdio: "ignore" });
    while (!existsSync(socket)) await sleep(20);
    await untilAllUp();
  });
  afterEach(async () => {
    rmSync(join(dir, "api2.down"), { force: true });
    for (const name of ["api1", "api2"]) await send(`set server api_hosts/${name} state ready`);
    await untilAllUp();
  });
  afterAll(async () => {
    haproxy?.kill();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("restarts each server in turn, each back in rotation before the next leaves it", async () => {
    // HAProxy's view every 20 ms through the roll: never fewer than one server in rotation.
    const seen: string[][] = [];
    let rolling = true;
    const watching = (async () => {
      while (rolling) {
        seen.push(await statuses());
        await sleep(20);
      }
    })();
    const roll = await admin("--restart", RESTART);
    rolling = false;
    await watching;
    expect(roll.stderr).toBe("");
    expect(roll.code).toBe(0);
    expect(roll.lines.map((line) => [line.server, line.step])).toEqual([
      [undefined, "start"],
      ...["api1", "api2"].flatMap((name) =>
        ["drained", "restarted", "back", "in_rotation"].map((step) => [name, step]),
      ),
      [undefined, "done"],
    ]);
    expect(roll.lines.find((line) => line.step === "back")?.check).toMatch(/^L7OK/);
    // "UP" and "UP 1/2" (a check failed, not yet the two that take it out) are both in rotation.
    expect(seen.filter((sample) => !sample.some((status) => status.startsWith("UP")))).toEqual([]);
    // Each was drained, seen down, back: both statuses appear, one server at a time.
    expect(seen.some((sample) => sample[0] === "DOWN" && sample[1] === "UP")).toBe(true);
    expect(seen.some((sample) => sample[0] === "UP" && sample[1] === "DOWN")).toBe(true);
    expect(readFileSync(join(dir, "restarts"), "utf8")).toBe("api1\napi2\n");
    expect(await statuses()).toEqual(["UP", "UP"]);
  });

  it("stops at a host HAProxy never sees restarted, leaving it drained and the next untouched", async () => {
    const roll = await admin("--restart", "true {server}", "--timeout-seconds", "2");
    expect(roll.code).toBe(1);
    expect(roll.stderr).toMatch(/^admin: HAProxy never saw api1 go down within 2 s of its restart command/);
    expect(roll.stderr).toContain("api1 is left drained, out of rotation (`set server api_hosts/api1 state ready`");
    expect(roll.lines.map((line) => line.step)).toEqual(["start", "drained", "restarted"]);
    const state = parseServersState(await send("show servers state api_hosts"));
    // 0x08: forced into drain; api2 as it was, running and in rotation.
    expect(state.map((server) => [server.name, server.opState, server.adminState])).toEqual([
      ["api1", 2, 0x08],
      ["api2", 2, 0],
    ]);
  });

  it("takes no server out while another is down", async () => {
    writeFileSync(join(dir, "api2.down"), "");
    while ((await statuses())[1] !== "DOWN") await sleep(50);
    const roll = await admin("--restart", RESTART);
    expect(roll.code).toBe(1);
    expect(roll.stderr).toMatch(/HAProxy shows api2 DOWN\. The roll stops: api1 was not touched/);
    expect(await statuses()).toEqual(["UP", "DOWN"]);
  });
});
