import { execFile } from "node:child_process";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { verificationMail } from "../../server/src/domain/auth/auth.mail.ts";
import { createMailer } from "../../server/src/mail/mailer.ts";
import { uniqueEmail } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const run = promisify(execFile);
const service = useTestService();

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

describe("e-mail without SMTP_URL", () => {
  it("logs the subject and the link outside production", async () => {
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({
      smtpUrl: undefined,
      from: "x",
      pool: service().service.db.pool,
      logger,
      logLinks: true,
    });
    await mailer.send(verificationMail("ada@example.com", "http://127.0.0.1:3000", "vt_secret_token_123456"));
    expect(lines.at(-1)).toMatchObject({
      msg: "e-mail written to the outbox",
      subject: "Confirm your e-mail address",
      link: "http://127.0.0.1:3000/verify-email#token=vt_secret_token_123456",
    });
  });

  it("never logs the link (nor its token) in production", async () => {
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({
      smtpUrl: undefined,
      from: "x",
      pool: service().service.db.pool,
      logger,
      logLinks: false,
    });
    await mailer.send(verificationMail("ada@example.com", "http://127.0.0.1:3000", "vt_secret_token_123456"));
    expect(JSON.stringify(lines)).not.toContain("vt_secret_token_123456");
    expect(lines.at(-1)).toMatchObject({ subject: "Confirm your e-mail address" });
  });

  it("lists the newest e-mails with `admin outbox:list`", async () => {
    const email = uniqueEmail("outbox");
    const mailer = createMailer({
      smtpUrl: undefined,
      from: "x",
      pool: service().service.db.pool,
      logger: pino({ level: "silent" }),
      logLinks: false,
    });
    await mailer.send(verificationMail(email, "http://127.0.0.1:3000", "vt_first_token_1234567"));
    await mailer.send(verificationMail(email, "http://127.0.0.1:3000", "vt_second_token_123456"));
    const { stdout } = await run(
      process.execPath,
      ["server/dist/cli/admin.js", "outbox:list", "--email", email.toUpperCase(), "--limit", "1"],
      { env: { ...process.env, DATABASE_URL: service().env.DATABASE_URL } },
    );
    const listed = JSON.parse(stdout) as Record<string, string>[];
    expect(listed).toEqual([
      {
        to: email,
        subject: "Confirm your e-mail address",
        link: "http://127.0.0.1:3000/verify-email#token=vt_second_token_123456",
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
  });
});
