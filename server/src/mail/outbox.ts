/**
 * Reading the `outbox` table, where e-mails land when no `SMTP_URL` is set: the admin CLI's `outbox:list` shows a
 * developer the links a real mailbox would have received.
 */
import type pg from "pg";

export interface OutboxEntry {
  to: string;
  subject: string;
  /** The first http(s) link of the text, or null when it has none. */
  link: string | null;
  created_at: string;
}

const OUTBOX_LIST_SQL = `
  SELECT to_address, subject, text_body, created_at FROM outbox
  WHERE $1::text IS NULL OR to_address = $1
  ORDER BY id DESC
  LIMIT $2`;

/**
 * The first link of an e-mail's text, without trailing punctuation.
 *
 * @example firstLink("Open http://127.0.0.1:3000/verify-email#token=abc.\n") // "http://127.0.0.1:3000/verify-email#token=abc"
 */
export function firstLink(text: string): string | null {
  const match = /https?:\/\/[^\s<>"]+/.exec(text);
  return match ? match[0].replace(/[.,;:!?)]+$/, "") : null;
}

/** The newest e-mails first, optionally to one address (compared as stored: trimmed and lower-cased). */
export async function listOutbox(pool: pg.Pool, options: { email?: string; limit: number }): Promise<OutboxEntry[]> {
  const { rows } = await pool.query<{ to_address: string; subject: string; text_body: string; created_at: Date }>(
    OUTBOX_LIST_SQL,
    [options.email ?? null, options.limit],
  );
  return rows.map((row) => ({
    to: row.to_address,
    subject: row.subject,
    link: firstLink(row.text_body),
    created_at: row.created_at.toISOString(),
  }));
}
