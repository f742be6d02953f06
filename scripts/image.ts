/**
 * The container image (deploy/Containerfile): `npm run image` builds the release artifact (scripts/release.ts), then
 * `service-platform:<version>-<commit>` with podman. Needs Debian's podman and debootstrap, and root.
 *
 * No registry but Debian's and npm's is reachable from these machines, so the base is made here: debootstrap's
 * minimal Debian 12 into a folder, imported as `localhost/service-platform-base:bookworm` once and reused. Node is
 * the binary running this script (Node 24 from npm's `node` package, or the machine's), copied in whole.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildRelease } from "./release.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
export const BASE_IMAGE = "localhost/service-platform-base:bookworm";
const DEBIAN_MIRROR = "http://deb.debian.org/debian";

const podman = (...args: string[]) =>
  execFileSync("podman", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** Makes the base image from Debian's packages, unless it is there already. */
function ensureBase(): void {
  if (spawnSync("podman", ["image", "exists", BASE_IMAGE]).status === 0) return;
  const dir = mkdtempSync(join(tmpdir(), "image-base-"));
  try {
    const rootfs = join(dir, "rootfs");
    execFileSync("debootstrap", ["--variant=minbase", "bookworm", rootfs, DEBIAN_MIRROR], { stdio: "ignore" });
    execFileSync("sh", ["-c", `tar -C "${rootfs}" -c . | podman import - ${BASE_IMAGE}`], { stdio: "ignore" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds the image of an artifact (a `service-platform-*.tar.gz`); returns its tag. */
export function buildImage(tarball: string): string {
  ensureBase();
  const context = mkdtempSync(join(tmpdir(), "image-context-"));
  try {
    execFileSync("tar", ["-xzf", tarball, "-C", context]);
    const [name = ""] = readdirSync(context);
    renameSync(join(context, name), join(context, "service-platform"));
    copyFileSync(process.execPath, join(context, "node"));
    const tag = `localhost/service-platform:${name.replace(/^service-platform-/, "")}`;
    podman(
      "build",
      "--quiet",
      "--build-arg",
      `BASE=${BASE_IMAGE}`,
      "-f",
      join(REPO, "deploy", "Containerfile"),
      "-t",
      tag,
      context,
    );
    return tag;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const release = buildRelease(join(REPO, ".tmp", "release"));
  const started = Date.now();
  const tag = buildImage(release.file);
  console.log(`${tag} from ${release.file} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
