import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { missingChanges, parsePatch, runtimePatches, unappliedPatches } from "./patches.ts";

const lines = (...each: string[]) => `${each.join("\n")}\n`;

/** Two hunks in a.js (a line added, a line replaced); one in b.js that only removes its first line. */
const PATCH = lines(
  "diff --git a/node_modules/lib/a.js b/node_modules/lib/a.js",
  "index 1111111..2222222 100644",
  "--- a/node_modules/lib/a.js",
  "+++ b/node_modules/lib/a.js",
  "@@ -1,3 +1,4 @@",
  " line 1",
  "+added after 1",
  " line 2",
  " line 3",
  "@@ -7,3 +8,3 @@",
  " line 7",
  "-line 8",
  "+line eight",
  " line 9",
  "diff --git a/node_modules/lib/b.js b/node_modules/lib/b.js",
  "--- a/node_modules/lib/b.js",
  "+++ b/node_modules/lib/b.js",
  "@@ -1,2 +1 @@",
  "-removed first line",
  " kept",
);
const A = ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9"];
const A_PATCHED = lines("line 1", "added after 1", ...A.slice(1, 7), "line eight", "line 9");
const B = lines("removed first line", "kept");
const B_PATCHED = lines("kept");

describe("missingChanges", () => {
  const cases: { given: string; files: Record<string, string>; want: string[] }[] = [
    { given: "every hunk applied", files: { a: A_PATCHED, b: B_PATCHED }, want: [] },
    {
      given: "nothing applied",
      files: { a: lines(...A), b: B },
      want: [
        "hunk 1 of node_modules/lib/a.js is not there",
        "hunk 2 of node_modules/lib/a.js is not there",
        "hunk 1 of node_modules/lib/b.js is not there",
      ],
    },
    {
      given: "the added line taken out again",
      files: { a: A_PATCHED.replace("added after 1\n", ""), b: B_PATCHED },
      want: ["hunk 1 of node_modules/lib/a.js is not there"],
    },
    {
      given: "the replaced line back as it was",
      files: { a: A_PATCHED.replace("line eight", "line 8"), b: B_PATCHED },
      want: ["hunk 2 of node_modules/lib/a.js is not there"],
    },
    {
      given: "a removal at the file's start undone (its result, `kept`, is in the original too)",
      files: { a: A_PATCHED, b: B },
      want: ["hunk 1 of node_modules/lib/b.js is not there"],
    },
    { given: "a file absent", files: { b: B_PATCHED }, want: ["node_modules/lib/a.js is missing"] },
    {
      given: "applied, with Windows line endings",
      files: { a: A_PATCHED.replace(/\n/g, "\r\n"), b: B_PATCHED.replace(/\n/g, "\r\n") },
      want: [],
    },
  ];
  it.each(cases)("$given: $want", ({ files, want }) => {
    const read = (path: string) => files[/lib\/(\w+)\.js$/.exec(path)?.[1] ?? ""];
    expect(missingChanges(PATCH, read)).toEqual(want);
  });

  it("reads a file the patch makes, and one it deletes", () => {
    const made = lines(
      "diff --git a/node_modules/lib/new.js b/node_modules/lib/new.js",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/node_modules/lib/new.js",
      "@@ -0,0 +1,2 @@",
      "+first",
      "+second",
    );
    const deleted = lines(
      "diff --git a/node_modules/lib/old.js b/node_modules/lib/old.js",
      "deleted file mode 100644",
      "--- a/node_modules/lib/old.js",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-gone",
    );
    expect(missingChanges(made, () => lines("first", "second"))).toEqual([]);
    expect(missingChanges(made, () => undefined)).toEqual(["node_modules/lib/new.js is missing"]);
    expect(missingChanges(deleted, () => undefined)).toEqual([]);
    expect(missingChanges(deleted, () => "gone\n")).toEqual(["node_modules/lib/old.js is still there"]);
  });
});

describe("parsePatch", () => {
  it("ends a hunk by its header's counts, so a blank context line that lost its space stays in it", () => {
    const patch = lines(
      "--- a/node_modules/lib/c.js",
      "+++ b/node_modules/lib/c.js",
      "@@ -1,3 +1,4 @@",
      " a",
      "",
      "+b",
      " c",
    );
    expect(parsePatch(patch)).toEqual([
      { path: "node_modules/lib/c.js", deleted: false, hunks: [{ before: "a\n\nc", after: "a\n\nb\nc" }] },
    ]);
  });
});

describe("unappliedPatches on this repository's patches", () => {
  const REPO = fileURLToPath(new URL("../../../", import.meta.url));
  const folders: string[] = [];
  afterEach(() => {
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** An install root with the patches and, of each patched package, its package.json and the files patched. */
  const copyOfInstall = () => {
    const root = mkdtempSync(join(tmpdir(), "patches-"));
    folders.push(root);
    cpSync(join(REPO, "patches"), join(root, "patches"), { recursive: true });
    mkdirSync(join(root, "server"));
    for (const name of runtimePatches(REPO)) {
      const files = parsePatch(readFileSync(join(REPO, "patches", name), "utf8")).map((file) => file.path);
      const pkg = /^node_modules\/[^/]+/.exec(files[0] ?? "")?.[0] ?? "";
      for (const path of [...files, `${pkg}/package.json`]) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        cpSync(join(REPO, path), join(root, path));
      }
    }
    return root;
  };
  const reverse = (root: string, name: string) =>
    execFileSync("git", ["apply", "--reverse", join("patches", name)], { cwd: root, stdio: "pipe" });

  it("finds the runtime patches (not newman's, a test's) applied in this tree", () => {
    expect(runtimePatches(REPO)).toEqual([
      "express-openapi-validator+5.6.2.patch",
      "ioredis+6.0.0.patch",
      "pg+8.23.1.patch",
      "pg-boss+12.38.0.patch",
    ]);
    expect(unappliedPatches(REPO)).toEqual([]);
  });

  it.each(runtimePatches(REPO))("names the package and the patch when %s is reversed in a copy", (name) => {
    const root = copyOfInstall();
    expect(unappliedPatches(root)).toEqual([]);
    reverse(root, name);
    const problems = unappliedPatches(root);
    expect(problems).toHaveLength(1);
    const pkg = name.slice(0, name.lastIndexOf("+"));
    expect(problems[0]).toMatch(new RegExp(`^${pkg} is not patched \\(patches/${name.replace(/[+.]/g, "\\$&")}: `));
  });

  it("checks the copy the server loads: one nested under server/node_modules, which patch-package leaves alone", () => {
    const root = copyOfInstall();
    cpSync(join(root, "node_modules", "ioredis"), join(root, "server", "node_modules", "ioredis"), { recursive: true });
    execFileSync("git", ["apply", "--reverse", "--directory=server", join("patches", "ioredis+6.0.0.patch")], {
      cwd: root,
      stdio: "pipe",
    });
    expect(unappliedPatches(root)).toEqual([
      "ioredis is not patched (patches/ioredis+6.0.0.patch: hunk 1 of node_modules/ioredis/built/connectors/SentinelConnector/index.js is not there)",
    ]);
  });

  it("refuses an install without its patches folder, which it could not check", () => {
    const root = copyOfInstall();
    rmSync(join(root, "patches"), { recursive: true });
    writeFileSync(join(root, "package.json"), "{}");
    expect(unappliedPatches(root)).toEqual([`no patches/ folder in ${root} to check the libraries against`]);
  });
});
