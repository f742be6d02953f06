import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectProblem } from "../helpers/problem.ts";
import { bareEnv, runServer, type ServerProcess } from "../helpers/process.ts";

describe("npm start on a fresh machine (no settings: embedded PostgreSQL)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "service-data-"));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("boots embedded PostgreSQL, migrates and answers /health, /ready and problem+json", async () => {
    server = await runServer([], bareEnv({ DATA_DIR: dataDir, PORT: "0" }));
    expect(server.logs.find((entry) => entry.msg === "API listening")).toMatchObject({ embedded_postgres: true });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    await expectProblem(await fetch(`${server.url}/v1/leads`), 401, "UNAUTHENTICATED");
  });

  it("lets a second process (the migrate role) use the running embedded PostgreSQL", async () => {
    const child = spawn(process.execPath, ["server/dist/main.js", "migrate"], {
      env: bareEnv({ DATA_DIR: dataDir }),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(output).toContain("using the embedded PostgreSQL already running");
    expect((await fetch(`${server?.url}/ready`)).status, "the first process is unharmed").toBe(200);
  });

  it("shuts down on SIGTERM with exit code 0, stopping its embedded PostgreSQL", async () => {
    const code = await server?.stop("SIGTERM");
    expect(code).toBe(0);
    expect(server?.logs.some((entry) => entry.msg === "stopped")).toBe(true);
    expect(server?.logs.filter((entry) => Number(entry.level) >= 50)).toEqual([]);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    await expect(fetch(`${server?.url}/health`)).rejects.toThrow();
  });

  it("starts again on the same data folder, keeping what it stored", async () => {
    server = await runServer([], bareEnv({ DATA_DIR: dataDir, PORT: "0" }));
    expect(server.logs.some((entry) => entry.msg === "initialising embedded PostgreSQL")).toBe(false);
    expect(server.logs.some((entry) => entry.msg === "migrations applied")).toBe(false);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
  });
});

describe("Ctrl-C in the terminal on the embedded default", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "service-data-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("exits 0 quietly: no error line, nothing on stderr, PostgreSQL stopped", async () => {
    // A terminal sends SIGINT to its whole foreground process group: the service and every child in its group.
    const child = spawn(process.execPath, ["server/dist/main.js"], {
      env: bareEnv({ DATA_DIR: dataDir, PORT: "0" }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        const match = /"url":"(http:[^"]+)"/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
    });
    await expectProblem(await fetch(`${url}/v1/leads`), 401, "UNAUTHENTICATED");
    const exited = once(child, "exit");
    process.kill(-(child.pid as number), "SIGINT");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const lines = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.some((line) => line.msg === "stopped")).toBe(true);
    // Logs are written asynchronously: what was logged before the signal may arrive after it, so "while stopping"
    // starts at the "shutting down" line. Expected there: that line and "stopped", not a warning with a stack.
    const stopping = lines.slice(lines.findIndex((line) => line.msg === "shutting down"));
    expect(stopping.length).toBeGreaterThan(0);
    // The old start let the terminal's SIGINT reach PostgreSQL too, which then logged its connections' deaths:
    // 6 KB of warnings with stacks. Now: a few plain lines (the count is loose: a late access line may land here).
    expect(
      stopping.filter((line) => line.level >= 40 || "err" in line),
      "warnings while stopping",
    ).toEqual([]);
    expect(stopping.length, `lines while stopping: ${stopping.map((line) => line.msg).join(" | ")}`).toBeLessThan(10);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  });
});
