/**
 * Whether the library patches the service runs on are applied to the files it loads (patches/README.md). A runtime
 * patch is every `patches/*.patch` but `*.dev.patch` (those of packages only the tests load). An install that skipped
 * patch-package (`npm ci --ignore-scripts`, a `node_modules` copied from elsewhere) would otherwise start without a
 * word and misbehave only under load or in a failover: throttles letting two attempts through, a Redis client that
 * ends for good. The check reads what each hunk leaves in its file, not a date or a marker of our own, so it holds for
 * the development tree and for an unpacked release alike, and costs a few small reads at start.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** One file a patch changes: its path from the install's root, and what each hunk leaves there. */
interface FileChange {
  readonly path: string;
  /** `+++ /dev/null`: the patch deletes the file. */
  readonly deleted: boolean;
  readonly hunks: readonly { readonly before: string; readonly after: string }[];
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** The files of a unified diff as git (and so patch-package) writes it, with each hunk's text before and after. */
export function parsePatch(text: string): FileChange[] {
  const files: { path: string; deleted: boolean; hunks: { before: string; after: string }[] }[] = [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.startsWith("+++ ")) {
      const target = line.slice(4).trim();
      const source = (lines[i - 1] ?? "").slice(4).trim();
      const deleted = target === "/dev/null";
      files.push({ path: (deleted ? source : target).replace(/^[ab]\//, ""), deleted, hunks: [] });
      continue;
    }
    const header = HUNK_HEADER.exec(line);
    const file = files.at(-1);
    if (!header || !file) continue;
    // The header's counts say where the hunk ends: a blank context line may have lost its leading space.
    let oldLeft = Number(header[1] ?? 1);
    let newLeft = Number(header[2] ?? 1);
    const before: string[] = [];
    const after: string[] = [];
    while ((oldLeft > 0 || newLeft > 0) && i + 1 < lines.length) {
      const body = lines[++i] ?? "";
      if (body.startsWith("\\")) continue;
      const kind = body[0] ?? " ";
      const content = body.slice(1);
      if (kind !== "+") {
        before.push(content);
        oldLeft--;
      }
      if (kind !== "-") {
        after.push(content);
        newLeft--;
      }
    }
    file.hunks.push({ before: before.join("\n"), after: after.join("\n") });
  }
  return files;
}

/**
 * What the files `read` returns do not hold of a patch, one phrase each: a file that is absent (or still there, for a
 * patch that deletes it), or a hunk whose resulting text is not in its file. A hunk whose result could be read in the
 * original too (it only removes lines at a file's edge) is checked by the absence of what it removes instead.
 *
 * @example
 * missingChanges(patchText, (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined));
 * // [] when applied; ["hunk 1 of node_modules/pg-boss/dist/manager.js is not there"] when not
 */
export function missingChanges(patch: string, read: (path: string) => string | undefined): string[] {
  return parsePatch(patch).flatMap((file) => {
    const raw = read(file.path);
    if (file.deleted) return raw === undefined ? [] : [`${file.path} is still there`];
    if (raw === undefined) return [`${file.path} is missing`];
    const content = raw.replace(/\r\n/g, "\n");
    return file.hunks.flatMap(({ before, after }, index) => {
      const distinct = after.length > 0 && !before.includes(after);
      const applied = content.includes(after) && (distinct || !content.includes(before));
      return applied ? [] : [`hunk ${index + 1} of ${file.path} is not there`];
    });
  });
}

/** `node_modules/@scope/name/…` or `node_modules/name/…`: the package a patched path belongs to. */
function packageOf(path: string): string {
  return /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path;
}

/**
 * Where a patched path is as the server loads it: Node looks for `node_modules/<package>` in the server's folder, then
 * in each folder above it up to the install's root; a copy of the package nested under the server would be the one
 * loaded, and patch-package patches only the root's.
 */
function installedPath(root: string, serverDir: string, path: string): string {
  const pkg = packageOf(path);
  for (let dir = serverDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return join(dir, path);
    if (dir === root || dirname(dir) === dir) return join(root, path);
  }
}

/** The runtime patches of an install, by file name (`pg-boss+12.38.0.patch`). */
export function runtimePatches(root: string): string[] {
  return readdirSync(join(root, "patches"))
    .filter((name) => name.endsWith(".patch") && !name.endsWith(".dev.patch"))
    .sort();
}

/**
 * What is not applied of the runtime patches in `<root>/patches` to the packages the server in `<root>/server` loads:
 * one phrase per patch, naming its package, the patch and what is missing. Empty when every one is applied.
 */
export function unappliedPatches(installRoot: string): string[] {
  const root = resolve(installRoot);
  const serverDir = join(root, "server");
  if (!existsSync(join(root, "patches"))) return [`no patches/ folder in ${root} to check the libraries against`];
  return runtimePatches(root).flatMap((name) => {
    const text = readFileSync(join(root, "patches", name), "utf8");
    const problems = missingChanges(text, (path) => {
      const file = installedPath(root, serverDir, path);
      return existsSync(file) ? readFileSync(file, "utf8") : undefined;
    });
    const pkg = packageOf(parsePatch(text)[0]?.path ?? name);
    return problems[0] ? [`${pkg} is not patched (patches/${name}: ${problems[0]})`] : [];
  });
}
