/**
 * The container image (deploy/Containerfile, scripts/image.ts) of the release artifact, built and run with Debian's
 * podman against a database owned by a role of its own. Needs root, podman, runc and debootstrap; without them it is
 * skipped with one line saying how to get them, and with CI=true it fails instead.
 *
 * Two choices are this machine's, not the image's (docs/decisions/0016-container-image.md): the runtime is runc,
 * since crun refuses the hybrid cgroup layout here; and the file and process limits are set below the machine's own
 * hard limits, which podman's defaults exceed and a process without CAP_SYS_RESOURCE cannot raise.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildImage } from "../../scripts/image.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { freePort } from "../helpers/free-port.ts";
import { releaseArtifact } from "../helpers/release.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const has = (binary: string) => spawnSync("sh", ["-c", `command -v ${binary}`]).status === 0;

function imageMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "the image test needs root (podman's storage)";
  const missing = ["podman", "runc", "debootstrap"].filter((binary) => !has(binary));
  return missing.length > 0
    ? `the image test needs ${missing.join(", ")}: apt-get install ${missing.join(" ")}`
    : undefined;
}

const missing = imageMissing();
if (missing && process.env.CI !== "true") console.warn(`skipping the container image: ${missing}`);

describe.skipIf(missing !== undefined && process.env.CI !== "true")("the container image", () => {
  let tag: string;
  let database: TestDatabase;
  const container = `service-platform-test-${process.pid}`;
  beforeAll(async () => {
    if (missing) throw new Error(missing);
    tag = buildImage(await releaseArtifact());
    database = await createTestDatabase({ ownedByNewRole: true });
  }, 600_000);
  afterAll(async () => {
    spawnSync("podman", ["rm", "--force", container]);
    if (tag) spawnSync("podman", ["rmi", "--force", tag]);
    await database?.drop();
  });

  it("serves /health, /ready and a 401 problem from the release inside it, and stops on SIGTERM with exit 0", async () => {
    const port = await freePort();
    const hard = Number(execFileSync("sh", ["-c", "ulimit -Hn"], { encoding: "utf8" }));
    // The machine's network (its PostgreSQL listens on 127.0.0.1): a bridge's port mapping is not what is tested here.
    const runArgs = [
      ...["run", "--detach", "--name", container, "--runtime", "runc", "--network", "host"],
      ...["--ulimit", `nofile=${Math.min(hard, 65_536)}:${Math.min(hard, 65_536)}`, "--ulimit", "nproc=4096:4096"],
      ...["--env", `DATABASE_URL=${database.url}`, "--env", "HOST=127.0.0.1", "--env", `PORT=${port}`],
      ...["--env", "WEB_CONCURRENCY=1", "--env", "DB_POOL_MAX=6", "--env", "SHUTDOWN_DRAIN_MS=0"],
    ];
    execFileSync("podman", [...runArgs, tag, "start"], { stdio: "pipe" });
    const url = `http://127.0.0.1:${port}`;
    const logs = () => spawnSync("podman", ["logs", container], { encoding: "utf8" });
    let health = 0;
    for (let i = 0; i < 600 && health !== 200; i++) {
      health = await fetch(`${url}/health`).then(
        (answer) => answer.status,
        () => 0,
      );
      if (health !== 200) await sleep(200);
    }
    expect(health, `${logs().stdout}\n${logs().stderr}`).toBe(200);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    const leads = await fetch(`${url}/v1/leads`);
    expect(leads.status).toBe(401);
    expect(leads.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    // The user is the image's, not root.
    expect(execFileSync("podman", ["exec", container, "id", "-u"], { encoding: "utf8" }).trim()).toBe("10001");
    execFileSync("podman", ["stop", "--time", "30", container], { stdio: "pipe" });
    const exit = execFileSync("podman", ["inspect", "--format", "{{.State.ExitCode}}", container], {
      encoding: "utf8",
    });
    expect(exit.trim()).toBe("0");
  });
});
