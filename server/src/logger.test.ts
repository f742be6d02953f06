import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pg from "pg";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createLogger, TurnBatchedDestination } from "./logger.ts";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ logLevel: "info" }, stream as never), text: () => lines.join("") };
}

describe("the service's logs", () => {
  it("never serialise a database client, its connection string or a row's values from an error", () => {
    const { logger, text } = capture();
    const client = new pg.Client({ connectionString: "postgres://app:hunter2-db-password@db.internal:5432/prod" });
    const error = Object.assign(new Error("duplicate key value violates unique constraint"), {
      code: "23505",
      severity: "ERROR",
      detail: "Key (email)=(ada@example.com) already exists.",
      where: "SQL statement INSERT INTO leads VALUES ('ada@example.com')",
      client,
      query: { text: "INSERT INTO leads (email) VALUES ($1)", values: ["ada@example.com"] },
    });
    logger.error({ err: new Error("request failed", { cause: error }) }, "request failed");
    const written = text();
    expect(written).toContain("duplicate key value violates unique constraint");
    expect(written).toContain('"code":"23505"');
    for (const leaked of ["hunter2-db-password", "db.internal", "ada@example.com", "INSERT INTO", "_queryable"]) {
      expect(written).not.toContain(leaked);
    }
    expect(written.length).toBeLessThan(3_000);
  });

  it("say what was thrown when it is not an Error: pg-boss's worker errors are plain objects", () => {
    const { logger, text } = capture();
    const cause = Object.assign(new Error("terminating connection due to idle-in-transaction timeout"), {
      code: "25P03",
      detail: "Key (email)=(ada@example.com)",
    });
    // What pg-boss 12 emits for a failed fetch of a worker (manager.js, `onError`): the error spread into an object.
    const emitted = { ...cause, message: cause.message, stack: cause.stack, queue: "webhook-delivery", worker: "w-1" };
    logger.error({ err: emitted }, "queue error");
    const { err } = JSON.parse(text()) as { err: Record<string, unknown> };
    expect(err).toMatchObject({
      type: "non-Error Object",
      message: "terminating connection due to idle-in-transaction timeout",
      code: "25P03",
      queue: "webhook-delivery",
      worker: "w-1",
      keys: ["detail"],
    });
    expect(text()).not.toContain("ada@example.com");
  });

  it("redacts passwords, tokens, secrets, keys and credentials in logged objects", () => {
    const { logger, text } = capture();
    logger.info(
      {
        req: { headers: { authorization: "Bearer sk_live_abc", cookie: "sid=s3ss10n", "x-csrf-token": "csrf-value" } },
        password: "pw-value",
        job: { token: "tok-value", secret: "whsec_value", key: "sk_live_key", csrf_token: "csrf-2" },
      },
      "something happened",
    );
    const written = text();
    for (const leaked of [
      "sk_live_abc",
      "s3ss10n",
      "csrf-value",
      "pw-value",
      "tok-value",
      "whsec_value",
      "sk_live_key",
      "csrf-2",
    ]) {
      expect(written).not.toContain(leaked);
    }
    expect(written).toContain("[Redacted]");
  });
});

describe("the log destination", () => {
  it("writes the lines of one turn of the event loop in one write, and each turn's lines by the end of it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "turn-batched-"));
    try {
      const file = join(dir, "log");
      const target = pino.destination({ dest: file, sync: false, mkdir: true });
      await new Promise((resolve) => target.once("ready", resolve));
      const writes: string[] = [];
      const write = target.write.bind(target);
      target.write = (chunk: string) => {
        writes.push(chunk);
        return write(chunk);
      };
      const logger = createLogger({ logLevel: "info" }, new TurnBatchedDestination(target));
      for (let i = 0; i < 100; i++) logger.info({ i }, "line");
      expect(writes).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes).toHaveLength(1);
      logger.info({ i: 100 }, "line");
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes).toHaveLength(2);
      const closed = new Promise((resolve) => target.once("close", resolve));
      target.end();
      await closed;
      const lines = readFileSync(file, "utf8").trim().split("\n");
      expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
        Array.from({ length: 101 }, (_, i) => i),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("loses no line when the process exits in the turn that logged it", () => {
    const script = `
      import { createLogger } from ${JSON.stringify(new URL("./logger.ts", import.meta.url).pathname)};
      const logger = createLogger({ logLevel: "info" });
      for (let i = 0; i < 1000; i++) logger.info({ i }, "before the crash");
      process.exit(3);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.status, child.stderr).toBe(3);
    const lines = child.stdout.trim().split("\n");
    expect(lines).toHaveLength(1000);
    expect(JSON.parse(lines[999] as string)).toMatchObject({ i: 999, msg: "before the crash" });
  });
});
