/**
 * Telling the workspace's owner that a subscription needs them, once per incident rather than once per delivery.
 *
 * An incident opens in the transaction that records the outcome causing it (worker.ts): `exhausted` when a delivery
 * ran out of attempts, `disabled` when delivery disabled the subscription (a 410, or five days of failures). At most one
 * of each kind is open per subscription (a unique index, migration 0011), so the thousand deliveries of one outage open
 * one. Opening one enqueues its alert job in the same transaction; the job e-mails the owner (the mailer: SMTP, or the
 * outbox without `SMTP_URL`) and marks it notified. A delivery that succeeds closes `exhausted`; re-enabling the
 * subscription closes both (webhooks.service.ts).
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import type { Queryable } from "../../db/queryable.ts";
import { defineQueue, onClient } from "../../jobs/queue.ts";
import type { Mail, Mailer } from "../../mail/mailer.ts";
import type { Outcome } from "./deliver.ts";

const ALERT_QUEUE = "webhook-alert";

interface AlertJob {
  incident_id: string;
}

/** Opens and closes incidents for outcomes just recorded in the transaction on `db`, and enqueues the alerts. */
export async function noteIncidents(boss: PgBoss, db: Queryable, outcomes: readonly Outcome[]): Promise<void> {
  const exhausted = outcomes
    .filter((o) => o.next.status === "failed" && o.health === "failing")
    .map((o) => o.webhookId);
  const troubled = outcomes.filter((o) => o.health !== "healthy").map((o) => o.webhookId);
  const healthy = outcomes.filter((o) => o.health === "healthy").map((o) => o.webhookId);
  if (healthy.length > 0) {
    await db.query({
      name: "close-exhausted-incidents",
      text: `UPDATE webhook_incidents SET closed_at = now()
              WHERE webhook_id = ANY($1) AND kind = 'exhausted' AND closed_at IS NULL`,
      values: [[...new Set(healthy)]],
    });
  }
  if (troubled.length === 0) return;
  const { rows } = await db.query<{ id: string }>({
    name: "open-webhook-incidents",
    text: `INSERT INTO webhook_incidents (webhook_id, kind)
           SELECT id, 'disabled' FROM webhooks
            WHERE id = ANY($1) AND NOT enabled AND disabled_reason IN ('endpoint_gone', 'failing')
           UNION
           SELECT DISTINCT id, 'exhausted' FROM unnest($2::text[]) AS id
           ON CONFLICT (webhook_id, kind) WHERE closed_at IS NULL DO NOTHING
           RETURNING id::text`,
    values: [[...new Set(troubled)], [...new Set(exhausted)]],
  });
  if (rows.length === 0) return;
  await boss.insert(
    ALERT_QUEUE,
    rows.map((row) => ({ data: { incident_id: row.id } })),
    { db: onClient(db) },
  );
}

/** Closes the subscription's open incidents (it was re-enabled), in the caller's transaction. */
export async function closeIncidents(db: Queryable, webhookId: string): Promise<void> {
  await db.query("UPDATE webhook_incidents SET closed_at = now() WHERE webhook_id = $1 AND closed_at IS NULL", [
    webhookId,
  ]);
}

interface IncidentRow {
  kind: "exhausted" | "disabled";
  opened_at: Date;
  notified_at: Date | null;
  webhook_id: string;
  url: string;
  disabled_reason: string | null;
  disabled_at: Date | null;
  owner_email: string | null;
}

function alertMail(incident: IncidentRow, baseUrl: string): Mail | undefined {
  if (!incident.owner_email) return undefined;
  const page = `${baseUrl}/settings/developers/webhooks/${incident.webhook_id}`;
  if (incident.kind === "disabled") {
    const why =
      incident.disabled_reason === "endpoint_gone"
        ? "it answered 410 Gone"
        : "every delivery to it failed for five days";
    return {
      to: incident.owner_email,
      kind: "webhook-disabled",
      link: page,
      subject: `Webhook endpoint disabled: ${incident.url}`,
      text: `Deliveries to ${incident.url} stopped on ${(incident.disabled_at ?? incident.opened_at).toISOString()} because ${why}.\n\nNo events are sent to it until it is enabled again. Once the endpoint works, enable it and recover what it missed in one step:\n\n${page}\n`,
    };
  }
  return {
    to: incident.owner_email,
    kind: "webhook-failing",
    link: page,
    subject: `Webhook deliveries failing: ${incident.url}`,
    text: `A delivery to ${incident.url} failed after every attempt on ${incident.opened_at.toISOString()}; later ones may follow. You get this e-mail once until a delivery succeeds again.\n\nSee the failed deliveries, and recover them in one step once the endpoint works:\n\n${page}\n`,
  };
}

/** Defines the alert queue and, for workers, works it. */
export async function registerWebhookAlerts(
  queue: PgBoss,
  deps: { pool: pg.Pool; mailer: Mailer; publicBaseUrl: string; logger: Logger },
  options: { work: boolean },
): Promise<void> {
  await defineQueue(queue, ALERT_QUEUE, { notify: true, retryLimit: 5, retryDelay: 5, retryBackoff: true });
  if (!options.work) return;
  await queue.work<AlertJob>(ALERT_QUEUE, { pollingIntervalSeconds: 5 }, async (jobs) => {
    for (const job of jobs) {
      const { rows } = await deps.pool.query<IncidentRow>(
        `SELECT i.kind, i.opened_at, i.notified_at, w.id AS webhook_id, w.url, w.disabled_reason, w.disabled_at,
                (SELECT u.email FROM users u WHERE u.workspace_id = coalesce(s.live_workspace_id, s.id)
                  ORDER BY u.created_at, u.id LIMIT 1) AS owner_email
           FROM webhook_incidents i JOIN webhooks w ON w.id = i.webhook_id JOIN workspaces s ON s.id = w.workspace_id
          WHERE i.id = $1`,
        [job.data.incident_id],
      );
      const incident = rows[0];
      if (!incident || incident.notified_at) continue;
      const mail = alertMail(incident, deps.publicBaseUrl);
      if (mail) await deps.mailer.send(mail);
      await deps.pool.query("UPDATE webhook_incidents SET notified_at = now() WHERE id = $1", [job.data.incident_id]);
      deps.logger.info({ webhook_id: incident.webhook_id, kind: incident.kind }, "webhook incident: owner told");
    }
  });
}
