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
