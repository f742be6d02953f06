/**
 * The release artifact (`npm run release`, scripts/release.ts) as a host gets it: unpacked outside the repository and
 * run with the command its systemd units run, against a database owned by a role with no other privilege, as
 * docs/deployment.md tells an operator to make it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/src/config.ts";
import { GC_FLAGS } from "../../server/src/gc-flags.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { runServer, type ServerProcess } from "../helpers/process.ts";
import { releaseArtifact, templateSettings, unitCommand, unpackRelease } from "../helpers/release.ts";

const UNITS = ["api", "worker", "start", "migrate"] as const;

describe("the release artifact, unpacked outside the repository", () => {
  let root: string;
  let app: string;
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  /** The template's settings with what this host must set: its database, a free port, a data folder. */
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const tarball = await releaseArtifact();
    root = mkdtempSync(join(tmpdir(), "release-test-"));
    app = unpackRelease(tarball, root);
    database = await createTestDatabase({ ownedByNewRole: true });
    env = {
      PATH: process.env.PATH,
      ...templateSettings(app),
      DATABASE_URL: database.url,
      DATA_DIR: join(root, "data"),
      PORT: "0",
      WEB_CONCURRENCY: "1",
      DB_POOL_MAX: "6",
      SHUTDOWN_DRAIN_MS: "0",
    };
  }, 300_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await database?.drop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("holds the built server and console, migrations, patches, units and template, and only production packages", () => {
    for (const path of [
      "server/dist/main.js",
      "server/migrations/0001_workspaces.sql",
      "console/dist/index.html",
      "spec/generated/openapi.yaml",
      "patches/pg-boss+12.38.0.patch",
      "deploy/service-platform.env",
      ...UNITS.map((unit) => `deploy/systemd/service-platform-${unit}.service`),
      "node_modules/pg-boss/package.json",
      "node_modules/patch-package/package.json",
    ]) {
      expect(existsSync(join(app, path)), path).toBe(true);
    }
    // Dev dependencies, build-only packages and the workspaces the server does not load stay out.
    for (const path of [
      "node_modules/vitest",
      "node_modules/typescript",
      "node_modules/newman",
      "node_modules/react",
    ]) {
      expect(existsSync(join(app, path)), path).toBe(false);
    }
    for (const path of ["sdk", "tests", "webhook-verifier", "server/src"])
      expect(existsSync(join(app, path)), path).toBe(false);
  });

  it("names every setting of server/src/config.ts in its environment template, each accepted as written", () => {
    const source = readFileSync(new URL("../../server/src/config.ts", import.meta.url), "utf8");
    const settings = [...new Set(source.match(/(?<=")[A-Z][A-Z0-9_]{2,}(?=")/g))];
    expect(settings.length).toBeGreaterThan(30);
    const template = readFileSync(join(app, "deploy", "service-platform.env"), "utf8");
    expect(settings.filter((name) => !new RegExp(`^(# )?${name}=`, "m").test(template))).toEqual([]);
    // Each commented line, set as written, is a value the service accepts.
    const commented = Object.fromEntries(
      [...template.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [
        name,
        value?.replace(/^"(.*)"$/, "$1"),
      ]),
    );
    expect(Object.keys(commented).length).toBeGreaterThan(30);
    expect(() => loadConfig({ ...templateSettings(app), ...commented })).not.toThrow();
  });

  it("migrates and serves as its units run it, as a role that owns its database and nothing else", async () => {
    const migrate = unitCommand(app, "migrate");
    const migrated = spawnSync(process.execPath, [...migrate.nodeArgs, migrate.main, ...migrate.args], {
      env,
      encoding: "utf8",
    });
    expect(migrated.status, migrated.stderr).toBe(0);
    const start = unitCommand(app, "start");
    server = await runServer(start.args, { ...env, HOST: "127.0.0.1" }, 120_000, start.nodeArgs, start.main);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status, await ready.clone().text()).toBe(200);
    const leads = await fetch(`${server.url}/v1/leads`);
    expect(leads.status).toBe(401);
    expect(leads.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await leads.json()).toMatchObject({ status: 401 });
    expect(await server.stop()).toBe(0);
    server = undefined;
    // What it made, it made as that role: the tables, and pg-boss's schema with its tables.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT rolsuper, rolcreatedb, rolcreaterole, (SELECT count(*)::int FROM schema_migrations) AS migrations,
                (SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'jobs') AS jobs_owner
           FROM pg_roles WHERE rolname = current_user`,
      );
      expect(rows[0]).toEqual({
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        migrations: readdirSync(join(app, "server", "migrations")).length,
        jobs_owner: database.name,
      });
    } finally {
      await client.end();
    }
  });

  it("refuses to start, in one line naming the package and the patch, once a runtime patch is reversed", () => {
    execFileSync("git", ["apply", "--reverse", "patches/pg-boss+12.38.0.patch"], { cwd: app });
    const { nodeArgs, main } = unitCommand(app, "api");
    const run = spawnSync(process.execPath, [...nodeArgs, main, "api"], { env, encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^cannot start: pg-boss is not patched \(patches\/pg-boss\+12\.38\.0\.patch: hunk 1 of node_modules\/pg-boss\/dist\/manager\.js is not there\); /,
      ),
    ]);
  });

  it("starts each long-running role with V8's flags of gc-flags.ts, in its units and its image", () => {
    for (const unit of ["api", "worker", "start"] as const)
      expect(unitCommand(app, unit).nodeArgs).toEqual([...GC_FLAGS]);
    const entrypoint = /^ENTRYPOINT (.+)$/m.exec(readFileSync(join(app, "deploy", "Containerfile"), "utf8"))?.[1];
    expect((JSON.parse(entrypoint ?? "[]") as string[]).slice(1, -1)).toEqual([...GC_FLAGS]);
  });

  it("has units that systemd reads without a warning", (context) => {
    if (spawnSync("systemd-analyze", ["--version"]).error) context.skip("systemd-analyze is not installed");
    const units = UNITS.map((unit) => join(app, "deploy", "systemd", `service-platform-${unit}.service`));
    const verified = spawnSync("systemd-analyze", ["verify", ...units], { encoding: "utf8" });
    expect(verified.stderr).toBe("");
    expect(verified.status).toBe(0);
  });
});
