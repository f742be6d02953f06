/**
 * The release artifact (scripts/release.ts) for the tests that run it: the release test, the container image's and
 * the fleet's hosts. It is built once per set of inputs (`inputDigest()`, a digest of every file it is made of) into
 * `.tmp/release-cache/<digest>/`, apart from `npm run release`'s own, so that a CI run builds it once: a test file
 * that finds another building it waits for that build rather than making its own.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRelease, inputDigest } from "../../scripts/release.ts";

const CACHE = fileURLToPath(new URL("../../.tmp/release-cache/", import.meta.url));
/** A build holds its lock for well under this (about 40 s on a loaded 2-core machine); an older lock was abandoned. */
const STALE_LOCK_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tarballIn = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith(".tar.gz")) : undefined;

/** The artifact of the tree as it is built now (`npm run build` first): its tarball's path. */
export async function releaseArtifact(): Promise<string> {
  const digest = inputDigest();
  const dir = join(CACHE, digest);
  const lock = join(CACHE, `${digest}.lock`);
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    const found = tarballIn(dir);
    if (found) return join(dir, found);
    try {
      mkdirSync(lock);
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      // Only the newest artifact is kept: each is about 40 MB.
      for (const entry of readdirSync(CACHE)) {
        if (entry !== digest && !entry.endsWith(".lock")) rmSync(join(CACHE, entry), { recursive: true, force: true });
      }
      return buildRelease(dir).file;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Unpacks an artifact into `into`, as a host does; resolves with the release's folder. */
export function unpackRelease(tarball: string, into: string): string {
  execFileSync("tar", ["-xzf", tarball, "-C", into]);
  const [name] = readdirSync(into).filter((entry) => entry.startsWith("service-platform-"));
  if (!name) throw new Error(`${tarball} holds no service-platform-* folder`);
  return join(into, name);
}

/** Where the units expect the release (deploy/systemd/*.service): a link to the unpacked folder on a real host. */
const INSTALLED_AT = "/opt/service-platform/current";

/**
 * What a systemd unit of the release runs (its `ExecStart=`) for the release unpacked at `app`: node's own options,
 * the script and its arguments. `node` is the test's, as the unit's is the host's.
 */
export function unitCommand(
  app: string,
  unit: "api" | "worker" | "start" | "migrate",
): { nodeArgs: string[]; main: string; args: string[] } {
  const text = readFileSync(join(app, "deploy", "systemd", `service-platform-${unit}.service`), "utf8");
  const [node, ...words] = (/^ExecStart=(.+)$/m.exec(text)?.[1] ?? "").split(/\s+/);
  const at = words.findIndex((word) => word.startsWith(INSTALLED_AT));
  if (node !== "node" || at < 0) throw new Error(`service-platform-${unit}.service does not run node on the release`);
  return {
    nodeArgs: words.slice(0, at),
    main: (words[at] ?? "").replace(INSTALLED_AT, app),
    args: words.slice(at + 1),
  };
}

/** The settings of the release's environment template, read as systemd's `EnvironmentFile=` reads them. */
export function templateSettings(app: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of readFileSync(join(app, "deploy", "service-platform.env"), "utf8").split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1]) settings[match[1]] = (match[2] ?? "").replace(/^"(.*)"$/, "$1");
  }
  return settings;
}
