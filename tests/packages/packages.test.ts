/**
 * The published packages, as an integrator gets them: both tarballs (`npm pack`) installed from the registry's point
 * of view into fresh projects outside the monorepo, then used as ESM, as CommonJS, as TypeScript (node16 CJS and
 * ESM, bundler) and from a CommonJS Jest test; and checked by arethetypeswrong and publint.
 *
 * Two installs per run, nothing cached between runs (a fresh npm cache in the temporary folder): one consumer project
 * whose sub-folders are the ESM, CommonJS and TypeScript flavours (each with its own package.json `type` and
 * tsconfig, resolving the one node_modules above them as any nested package does), and one Jest project.
 *
 * The tarballs are packed from the built `dist` (`npm run build`, which `npm test` runs first) with --ignore-scripts:
 * `prepack` would rebuild `dist` in place while other test files import the SDK from it.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sign } from "../../webhook-verifier/src/node.ts";
import { freePort } from "../helpers/free-port.ts";
import { CJS_SCENARIO, ESM_SCENARIO, JEST_TEST, SCENARIO_OUTPUT, TS_PROJECTS, TS_SCENARIO } from "./consumers.ts";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const bin = (path: string) => realpathSync(join(root, "node_modules/.bin", path));
// The Jest version the Jest project installs (Jest 30 accepts Node 20 and 24).
const JEST_VERSION = "30.5.2";
const PACKAGES = ["sdk", "webhook-verifier"] as const;

// Child npm processes must not inherit the settings of the `npm test` that started this run (workspaces, prefix).
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== "INIT_CWD"),
);

let work = "";
let keep = false;
const tarballs: Record<(typeof PACKAGES)[number], string> = { sdk: "", "webhook-verifier": "" };

async function sh(command: string, args: string[], cwd: string, timeout = 180_000) {
  try {
    return await run(command, args, { cwd, env: childEnv, timeout, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const failure = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}:\n${failure.stdout ?? ""}\n${failure.stderr ?? ""}`,
      {
        cause: error,
      },
    );
  }
}

function write(path: string, content: string | object): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
}

async function install(project: string, extra: string[]): Promise<void> {
  write(join(project, "package.json"), { name: "consumer", version: "1.0.0", private: true });
  await sh(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--cache",
      join(work, "npm-cache"),
      tarballs.sdk,
      tarballs["webhook-verifier"],
      ...extra,
    ],
    project,
  );
}

beforeAll(async () => {
  for (const name of PACKAGES) {
    if (!existsSync(join(root, name, "dist/index.js"))) throw new Error(`${name}/dist is missing: run npm run build`);
  }
  work = mkdtempSync(join(tmpdir(), "service-packages-"));
  const { stdout } = await sh(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", work, ...PACKAGES.flatMap((p) => ["-w", p])],
    root,
  );
  const packed = JSON.parse(stdout) as { name: string; filename: string }[];
  for (const name of PACKAGES) {
    const entry = packed.find((p) => p.name === `@service/${name}`);
    if (!entry) throw new Error(`npm pack did not pack ${name}`);
    tarballs[name] = join(work, entry.filename);
  }
  // The two installs reach the registry (openapi-fetch, Jest): run them side by side.
  await Promise.all([install(join(work, "consumer"), []), install(join(work, "jest"), [`jest@${JEST_VERSION}`])]);
});

afterEach((context) => {
  if (context.task.result?.state === "fail") keep = true;
});

afterAll(() => {
  if (!work) return;
  // Kept for inspection when a test failed.
  if (keep) console.warn(`package test projects kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
});

describe.each(PACKAGES)("the %s tarball", (name) => {
  it("ships the builds, declarations, README, CHANGELOG and LICENSE, and no sources or tests", async () => {
    const { stdout } = await sh("tar", ["-tzf", tarballs[name]], work);
    const files = stdout.trim().split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/LICENSE",
        "package/README.md",
        "package/CHANGELOG.md",
        "package/dist/index.cjs",
      ]),
    );
    expect(files.filter((file) => /\.test\.|\/src\/|\.map$|tsconfig|tsup\.config/.test(file))).toEqual([]);
  });

  it("packed in its own folder (npm pack, as a maintainer runs it), leaves nothing untracked", async () => {
    const status = async () =>
      (await sh("git", ["status", "--porcelain", "--untracked-files=all", "--", name], root)).stdout;
    const before = await status();
    const { stdout } = await sh("npm", ["pack", "--json", "--ignore-scripts"], join(root, name));
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    try {
      expect(existsSync(join(root, name, packed?.filename ?? "-"))).toBe(true);
      expect(await status()).toBe(before);
    } finally {
      rmSync(join(root, name, packed?.filename ?? "-"), { force: true });
    }
  });

  it("passes arethetypeswrong (every module resolution)", async () => {
    const { stdout } = await sh(process.execPath, [bin("attw"), tarballs[name], "--format", "ascii"], work);
    expect(stdout).toContain("No problems found");
  });

  it("passes publint --strict", async () => {
    const { stdout, stderr } = await sh(process.execPath, [bin("publint"), "run", "--strict", tarballs[name]], work);
    expect(`${stdout}${stderr}`).toContain("All good!");
  });
});

describe("a project outside the monorepo", () => {
  it("runs both packages as ESM (the node build of the verifier)", async () => {
    const dir = join(work, "consumer/esm");
    write(join(dir, "main.mjs"), ESM_SCENARIO);
    const { stdout, stderr } = await sh(process.execPath, ["main.mjs"], dir);
    expect(JSON.parse(stdout)).toMatchObject({ ...SCENARIO_OUTPUT, agent: expect.stringMatching(/^service-sdk\//) });
    expect(stderr).toMatch(/sdk\/dist\/index\.js .*webhook-verifier\/dist\/node\.js/);
  });

  it("runs both packages as CommonJS (require)", async () => {
    const dir = join(work, "consumer/cjs");
    write(join(dir, "main.cjs"), CJS_SCENARIO);
    const { stdout, stderr } = await sh(process.execPath, ["main.cjs"], dir);
    expect(JSON.parse(stdout)).toMatchObject(SCENARIO_OUTPUT);
    expect(stderr).toMatch(/sdk\/dist\/index\.cjs .*webhook-verifier\/dist\/node\.cjs/);
  });

  it.each(TS_PROJECTS)("type-checks and runs as TypeScript: $name", async ({ name, type, compilerOptions }) => {
    const dir = join(work, "consumer", name);
    write(join(dir, "package.json"), { name, private: true, type });
    write(join(dir, "main.ts"), TS_SCENARIO);
    write(join(dir, "tsconfig.json"), {
      compilerOptions: {
        ...compilerOptions,
        target: "es2022",
        lib: ["es2023"],
        strict: true,
        // Check the published declarations themselves, not only their use.
        skipLibCheck: false,
        outDir: "dist",
        // Node's types from the monorepo: the projects install nothing but the two tarballs.
        typeRoots: [join(root, "node_modules/@types")],
        types: ["node"],
      },
      files: ["main.ts"],
    });
    await sh(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], dir);
    const { stdout } = await sh(process.execPath, ["dist/main.js"], dir);
    expect(JSON.parse(stdout)).toMatchObject(SCENARIO_OUTPUT);
  });

  it("runs `npx @service/sdk listen` from the installed package: its usage, and a clear refusal without a key", async () => {
    const dir = join(work, "consumer");
    // The command's own node is this run's, first on PATH (the bin's `#!/usr/bin/env node`).
    const env = { ...childEnv, PATH: `${dirname(process.execPath)}:${childEnv.PATH ?? ""}`, SERVICE_API_KEY: "" };
    const help = await run("npx", ["--offline", "@service/sdk", "listen", "--help"], { cwd: dir, env });
    expect(help.stdout).toContain("Usage: npx @service/sdk listen --forward-to <url>");
    const refused = await run("npx", ["--offline", "@service/sdk", "listen", "--forward-to", "http://127.0.0.1:9"], {
      cwd: dir,
      env,
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Set SERVICE_API_KEY to an API key with the events:read scope.");
  });

  it("runs `npx @service/sdk trigger` from the installed package: its usage, and a refusal of a live key", async () => {
    const dir = join(work, "consumer");
    const env = { ...childEnv, PATH: `${dirname(process.execPath)}:${childEnv.PATH ?? ""}` };
    const help = await run("npx", ["--offline", "@service/sdk", "trigger", "--help"], { cwd: dir, env });
    expect(help.stdout).toContain("Usage: npx @service/sdk trigger <event-type>");
    // Port 9 (discard) is never asked: the refusal comes before any request.
    const live = { ...env, SERVICE_API_KEY: "sk_live_packaged", SERVICE_BASE_URL: "http://127.0.0.1:9" };
    const refused = await run("npx", ["--offline", "@service/sdk", "trigger", "lead.captured"], {
      cwd: dir,
      env: live,
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("trigger needs a test key (sk_test_…)");
  });

  it("passes a CommonJS Jest test that requires the verifier", async () => {
    const dir = join(work, "jest");
    write(join(dir, "verifier.test.cjs"), JEST_TEST);
    const jest = join(dir, "node_modules/jest/bin/jest.js");
    const { stdout, stderr } = await sh(process.execPath, [jest, "--ci", "--colors=false", "--rootDir", dir], dir);
    expect(`${stdout}${stderr}`).toMatch(/Tests:\s+4 passed, 4 total/);
  });
});

/** The fenced code blocks of one language in a README. */
function snippets(readme: string, language: string): string[] {
  return [...readme.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1] ?? "");
}

describe("the READMEs, as shipped in the tarballs", () => {
  it("type-check every TypeScript snippet (node16 ESM, strict)", async () => {
    const dir = join(work, "consumer/readme");
    write(join(dir, "package.json"), { name: "readme", private: true, type: "module" });
    const files: string[] = [];
    for (const name of PACKAGES) {
      const readme = readFileSync(join(work, "consumer/node_modules/@service", name, "README.md"), "utf8");
      snippets(readme, "ts").forEach((code, index) => {
        const file = `${name}-${index + 1}.ts`;
        write(join(dir, file), code);
        files.push(file);
      });
    }
    expect(files.length).toBeGreaterThanOrEqual(4);
    write(join(dir, "tsconfig.json"), {
      compilerOptions: {
        module: "node16",
        moduleResolution: "node16",
        target: "es2022",
        lib: ["es2023"],
        strict: true,
        noEmit: true,
        typeRoots: [join(root, "node_modules/@types")],
        types: ["node"],
      },
      files,
    });
    await sh(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], dir);
  });

  it("runs the verifier's receiver as its README says (node receiver.mjs), and it answers signed deliveries", async () => {
    const dir = join(work, "consumer/esm");
    const readme = readFileSync(join(work, "consumer/node_modules/@service/webhook-verifier/README.md"), "utf8");
    const receiver = snippets(readme, "js")[0];
    expect(receiver).toContain("node receiver.mjs");
    write(join(dir, "receiver.mjs"), receiver ?? "");
    const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
    const port = await freePort();
    const child = spawn(process.execPath, ["receiver.mjs"], {
      cwd: dir,
      env: { ...childEnv, WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    try {
      const payload = JSON.stringify({ id: "evt_1", type: "lead.captured", data: { object: { id: "lead_1" } } });
      const headers = await sign({ payload, secret });
      const post = (body: string) =>
        fetch(`http://127.0.0.1:${port}/webhooks`, { method: "POST", headers, body }).then(async (r) => [
          r.status,
          await r.text(),
        ]);
      let answer: unknown[] = [];
      for (let attempt = 0; attempt < 100; attempt++) {
        answer = await post(payload).catch(() => []);
        if (answer.length > 0) break;
        await new Promise((r) => setTimeout(r, 100)); // the receiver is still starting
      }
      expect(answer).toEqual([204, ""]);
      expect(await post(payload.replace("lead_1", "lead_2"))).toEqual([400, "no_matching_signature"]);
      expect(output).toContain("lead.captured lead_1");
    } finally {
      child.kill();
    }
  });
});

describe("the package.json files", () => {
  it.each(PACKAGES)("%s builds before it is packed, is public and MIT", (name) => {
    const pkg = JSON.parse(readFileSync(join(root, name, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      license: "MIT",
      sideEffects: false,
      scripts: { prepack: "npm run build" },
      publishConfig: { access: "public" },
      engines: { node: expect.any(String) },
    });
    expect(pkg.files).not.toContain("src");
  });
});
