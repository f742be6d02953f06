/**
 * The release artifact: `npm run release` builds the tree, then writes
 * `.tmp/release/service-platform-<version>-<commit>.tar.gz` (`-- --out <dir>` to put it elsewhere): one folder that a
 * host unpacks and runs with `node server/dist/main.js <role>`. Hosts never build or install (docs/deployment.md).
 *
 * Its `node_modules` is made by `npm ci --omit=dev` in a staging copy of the manifests, never copied from this tree (a
 * developer's `node_modules` holds dev dependencies, and whatever was done to it by hand): the production
 * dependencies of the server and of the root, patched there by the root's postinstall (patches/README.md). The
 * workspace packages the server loads at run time (`@service/spec`'s documents, `@service/console`'s build) are linked
 * from `node_modules/@service/` as npm links them, to their folders in the artifact.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { unappliedPatches } from "../server/src/lib/patches.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** What the server reads at run time besides its own `dist` and `node_modules`, each checked to exist first. */
const BUILT = ["server/dist/main.js", "console/dist/index.html", "spec/generated/openapi.yaml"];

/** Copied whole: the migrations, the patches the service checks itself against, the units and the guide. */
const COPIED = [
  "server/dist",
  "server/migrations",
  "console/dist",
  "patches",
  "deploy",
  "docs/deployment.md",
  "docs/fleet-haproxy.cfg",
];

const readJson = (path: string) => JSON.parse(readFileSync(join(REPO, path), "utf8"));

/** The workspaces' folders (`server`, `spec`…), as the root's package.json lists them. */
const workspaces = (): string[] => readJson("package.json").workspaces;

/** What npm ci reads: the lockfile, npm's settings and every workspace's manifest. */
const manifests = (): string[] => [
  "package.json",
  "package-lock.json",
  ".npmrc",
  ...workspaces().map((workspace) => join(workspace, "package.json")),
];

/** Everything an artifact is made of, by path from the repository's root. */
const inputs = (): string[] => [...manifests(), ...COPIED, ...specFiles(), "scripts/release.ts"];

/**
 * A digest of every file an artifact is made of: two builds from the same digest hold the same files, so a test can
 * reuse an artifact built from it (tests/helpers/release.ts).
 */
export function inputDigest(): string {
  const hash = createHash("sha256");
  const add = (path: string) => {
    const full = join(REPO, path);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) add(join(path, entry));
      return;
    }
    hash.update(`${path}\0`).update(readFileSync(full)).update("\0");
  };
  for (const path of inputs()) add(path);
  return hash.digest("hex").slice(0, 16);
}

/**
 * An npm run from `npm run release` inherits the parent's settings as `npm_*` variables (its prefix among them);
 * the staging install must see only its own folder and the user's registry settings.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const kept = new Set(["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]);
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.toLowerCase().startsWith("npm_") || kept.has(name.toLowerCase())) env[name] = value;
  }
  delete env.NODE_ENV;
  return env;
}

const git = (...args: string[]) => execFileSync("git", args, { cwd: REPO, encoding: "utf8" }).trim();

/** The files of `@service/spec` its `exports` name, but types (the server reads the documents, never the types). */
function specFiles(): string[] {
  const exports = readJson("spec/package.json").exports as Record<string, unknown>;
  return Object.values(exports).flatMap((target) => (typeof target === "string" ? [join("spec", target)] : []));
}

export interface Release {
  /** The tarball's path. */
  readonly file: string;
  /** The folder it unpacks to (`service-platform-<version>-<commit>`). */
  readonly name: string;
  readonly bytes: number;
  /** How long `npm ci --omit=dev` took in the staging copy, and the whole build, in ms. */
  readonly installMs: number;
  readonly totalMs: number;
}

/** Builds the artifact from this tree's built output into `out`; the tree must be built (`npm run build`). */
export function buildRelease(out: string): Release {
  const started = Date.now();
  for (const file of BUILT) statSync(join(REPO, file));
  const version = readJson("server/package.json").version as string;
  const commit = `${git("rev-parse", "--short=12", "HEAD")}${git("status", "--porcelain") ? "-dirty" : ""}`;
  const name = `service-platform-${version}-${commit}`;
  const staging = mkdtempSync(join(tmpdir(), "release-"));
  try {
    const app = join(staging, name);
    const copy = (path: string) => {
      mkdirSync(dirname(join(app, path)), { recursive: true });
      cpSync(join(REPO, path), join(app, path), { recursive: true });
    };
    // npm ci checks the lockfile against every workspace's manifest, so all of them are staged; the server's
    // production closure and the root's (patch-package) are installed.
    for (const path of [...manifests(), "patches"]) copy(path);
    const installing = Date.now();
    execFileSync(
      "npm",
      ["ci", "--omit=dev", "--workspace=@service/server", "--include-workspace-root", "--no-audit", "--no-fund"],
      { cwd: app, env: npmEnv(), stdio: ["ignore", "ignore", "pipe"] },
    );
    const installMs = Date.now() - installing;
    rmSync(join(app, ".npmrc"));
    for (const workspace of workspaces()) {
      if (!["server", "spec", "console"].includes(workspace)) rmSync(join(app, workspace), { recursive: true });
    }
    for (const path of [...COPIED, ...specFiles()]) copy(path);
    writeFileSync(
      join(app, "release.json"),
      `${JSON.stringify({ name, version, commit, node: process.version }, null, 2)}\n`,
    );

    // What a host would find at start: every runtime patch applied, the workspace packages resolved.
    const unapplied = unappliedPatches(app);
    if (unapplied.length > 0) throw new Error(`the staged install is not patched: ${unapplied.join("; ")}`);
    const fromServer = createRequire(join(app, "server", "package.json"));
    for (const request of ["@service/spec/openapi.yaml", "@service/console/package.json"]) fromServer.resolve(request);

    mkdirSync(out, { recursive: true });
    const file = join(out, `${name}.tar.gz`);
    // Written aside and renamed: a reader waiting for the file never sees half of it.
    execFileSync("tar", ["-C", staging, "--owner=0", "--group=0", "--numeric-owner", "-czf", `${file}.partial`, name]);
    renameSync(`${file}.partial`, file);
    return { file, name, bytes: statSync(file).size, installMs, totalMs: Date.now() - started };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const at = process.argv.indexOf("--out");
  const out = resolve(at > 0 ? (process.argv[at + 1] ?? "") : join(REPO, ".tmp", "release"));
  const release = buildRelease(out);
  console.log(
    `${release.file}: ${(release.bytes / 1e6).toFixed(1)} MB in ${(release.totalMs / 1000).toFixed(1)} s ` +
      `(npm ci --omit=dev ${(release.installMs / 1000).toFixed(1)} s)`,
  );
}
