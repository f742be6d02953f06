/**
 * Runs test files N times in a row while two busy loops load the machine's cores, and prints each run's verdict and
 * the totals: a test that passes only on a quiet machine fails here.
 *
 *   npm run test:repeat -- tests/foundation/process.test.ts
 *   npm run test:repeat -- --runs 5 tests/webhooks/listen.test.ts
 *   npm run test:repeat -- --lock /tmp/fleet.lock tests/fleet        (each run under `flock`, as the fleet needs)
 *
 * Options: `--runs N` (10), `--burners N` (2: one per core here), `--lock FILE`. The runs use the environment as it is
 * (DATABASE_URL, REDIS_URL); CI=true unless set, so that a missing tool fails a test instead of skipping it. Each
 * run's output is kept in .tmp/repeat/; the exit code is 1 when any run failed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";

const REPORT = ".tmp/vitest-report.json";
const LOGS = ".tmp/repeat";

const { values, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "10" },
    burners: { type: "string", default: "2" },
    lock: { type: "string" },
  },
});
const runs = Number(values.runs);
const burnerCount = Number(values.burners);
if (files.length === 0 || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(burnerCount) || burnerCount < 0) {
  console.error("usage: npm run test:repeat -- [--runs N] [--burners N] [--lock FILE] <test files or folders>");
  process.exit(2);
}

/** A busy loop in a process of its own: the scheduler gives it a core, as another tenant's work would take one. */
function startBurner(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

/** The counts of vitest's JSON report (vitest.config.ts writes it), or undefined when the run wrote none. */
function readCounts(): { passed: number; failed: number; failures: string[] } | undefined {
  if (!existsSync(REPORT)) return undefined;
  const report = JSON.parse(readFileSync(REPORT, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    testResults: {
      name: string;
      status: string;
      message: string;
      assertionResults: { status: string; fullName: string }[];
    }[];
  };
  const failures = report.testResults.flatMap((file) => {
    const tests = file.assertionResults.filter((test) => test.status === "failed").map((test) => test.fullName);
    if (file.status === "failed" && tests.length === 0) return [`${file.name}: ${file.message.split("\n")[0]}`];
    return tests;
  });
  return { passed: report.numPassedTests, failed: failures.length, failures };
}

async function runOnce(index: number): Promise<{ ok: boolean; seconds: number; line: string }> {
  rmSync(REPORT, { force: true });
  const vitest = [process.execPath, "node_modules/vitest/vitest.mjs", "run", ...files];
  const [command, ...args] = values.lock ? ["flock", values.lock, ...vitest] : vitest;
  const log = `${LOGS}/run-${index}.log`;
  const output = createWriteStream(log);
  const started = performance.now();
  const child = spawn(command as string, args, {
    env: { ...process.env, CI: process.env.CI ?? "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.pipe(output);
  child.stderr?.pipe(output);
  const [code] = (await once(child, "exit")) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  const counts = readCounts();
  const ok = code === 0 && counts !== undefined && counts.failed === 0;
  const tally = counts ? `${counts.passed} passed, ${counts.failed} failed` : "no report";
  const failures = counts?.failures.map((name) => `\n    ${name}`).join("") ?? "";
  const verdict = ok ? "pass" : `FAIL (exit ${code}, output in ${log})`;
  return { ok, seconds, line: `run ${index}/${runs}: ${verdict}: ${tally} in ${seconds.toFixed(1)} s${failures}` };
}

mkdirSync(LOGS, { recursive: true });
const burners = Array.from({ length: burnerCount }, startBurner);
const stopBurners = () => {
  for (const burner of burners) burner.kill("SIGKILL");
};
process.once("exit", stopBurners);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    stopBurners();
    process.exit(130);
  });
}

console.log(`${new Date().toISOString()}: ${files.join(" ")}, ${runs} runs beside ${burnerCount} busy loops`);
const results: { ok: boolean; seconds: number }[] = [];
for (let index = 1; index <= runs; index++) {
  const result = await runOnce(index);
  results.push(result);
  console.log(result.line);
}
stopBurners();
const seconds = results.map((result) => result.seconds).sort((a, b) => a - b);
const passed = results.filter((result) => result.ok).length;
const median = seconds[Math.floor(seconds.length / 2)] ?? 0;
console.log(
  `${new Date().toISOString()}: ${passed} of ${runs} runs passed; ` +
    `${seconds[0]?.toFixed(1)}–${seconds.at(-1)?.toFixed(1)} s a run (median ${median.toFixed(1)} s)`,
);
process.exitCode = passed === runs ? 0 : 1;
