import { Writable } from "node:stream";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

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
