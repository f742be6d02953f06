/**
 * Outgoing e-mail. With `SMTP_URL`, nodemailer over SMTP; without it, each message lands in the `outbox` table
 * and the log (a fresh machine has no mail server; the tests read links from the outbox). Outside production the
 * log line carries the message's link, so that a developer signs up with nothing but the terminal; in production
 * it never does: the link holds a single-use token that grants the account.
 */
import nodemailer from "nodemailer";
import type pg from "pg";
import type { Logger } from "pino";

export interface Mail {
  to: string;
  /** What the message is for: `verify`, `reset`, `account-exists`. */
  kind: string;
  subject: string;
  text: string;
  /** The one link the message exists for (it holds a token), if any. */
  link?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function createMailer(options: {
  smtpUrl: string | undefined;
  from: string;
  pool: pg.Pool;
  logger: Logger;
  /** Write each message's link into the log line (development and tests only: links carry tokens). */
  logLinks: boolean;
}): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
        options.logger.info({ to: mail.to, kind: mail.kind }, "e-mail sent");
      },
    };
  }
  return {
    async send(mail) {
      await options.pool.query("INSERT INTO outbox (to_address, kind, subject, text_body) VALUES ($1, $2, $3, $4)", [
        mail.to,
        mail.kind,
        mail.subject,
        mail.text,
      ]);
      const link = options.logLinks && mail.link ? { link: mail.link } : {};
      options.logger.info(
        { to: mail.to, kind: mail.kind, subject: mail.subject, ...link },
        "e-mail written to the outbox",
      );
    },
  };
}
