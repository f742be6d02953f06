/**
 * One endpoint: its settings (Edit, Delete, enable/disable, Rotate secret), why it is disabled if it is, its health
 * over the last 24 hours, Recover failed deliveries, Send test event, and its deliveries.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { type Webhook, webhookQuery } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { paths } from "../../routes.ts";
import { DeliveriesTable } from "./deliveries.tsx";
import { EnableToggle, RotateSecret, SendTestEvent } from "./webhook-actions.tsx";
import { DeleteEndpoint } from "./webhook-delete.tsx";
import { DisabledNotice } from "./webhook-disabled.tsx";
import { EditEndpoint } from "./webhook-edit.tsx";
import { lastDay, RecoverDialog, type RecoverStart } from "./webhook-recover.tsx";
import { WebhookHealth } from "./webhook-stats.tsx";
import { WebhookStatus } from "./webhooks.tsx";

/** The service's default when `max_concurrent_deliveries` is null (the contract's `WebhookUpdate`). */
const DEFAULT_CONCURRENT_DELIVERIES = 10;

function Settings({ webhook, onEnabled }: { webhook: Webhook; onEnabled: (disabledSince: string | null) => void }) {
  return (
    <section className="card" aria-labelledby="endpoint-settings">
      <h2 id="endpoint-settings" className="visually-hidden">
        Settings
      </h2>
      <dl className="details">
        <dt>Endpoint URL</dt>
        <dd className="mono break">{webhook.url}</dd>
        <dt>Status</dt>
        <dd>
          <WebhookStatus webhook={webhook} />
        </dd>
        <dt>Events</dt>
        <dd>
          <ul className="tags">
            {webhook.events.map((event) => (
              <li key={event} className="tag mono">
                {event}
              </li>
            ))}
          </ul>
        </dd>
        {webhook.description ? (
          <>
            <dt>Description</dt>
            <dd>{webhook.description}</dd>
          </>
        ) : null}
        <dt>Max deliveries per second</dt>
        <dd>{webhook.max_deliveries_per_second ?? "No limit"}</dd>
        <dt>Max concurrent deliveries</dt>
        <dd>{webhook.max_concurrent_deliveries ?? `${DEFAULT_CONCURRENT_DELIVERIES} (the default)`}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(webhook.created_at)}</dd>
        <dt>Secret rotated</dt>
        <dd>{formatDateTime(webhook.secret_rotated_at, "Never")}</dd>
      </dl>
      <div className="button-row">
        <EditEndpoint webhook={webhook} />
        <EnableToggle webhook={webhook} onEnabled={onEnabled} />
        <RotateSecret webhook={webhook} />
        <DeleteEndpoint webhook={webhook} />
      </div>
    </section>
  );
}

function Recover({ webhook, onOpen }: { webhook: Webhook; onOpen: () => void }) {
  return (
    <section className="card" aria-labelledby="endpoint-recover">
      <h2 id="endpoint-recover">Recover failed deliveries</h2>
      <p>
        After your endpoint was down, send again in one step every delivery that failed since a time you choose, at this
        endpoint's pace.
      </p>
      {webhook.enabled ? (
        <button type="button" className="button" onClick={onOpen}>
          Recover failed deliveries…
        </button>
      ) : (
        <p className="muted">Enable the endpoint first: a disabled endpoint is sent nothing.</p>
      )}
    </section>
  );
}

export function WebhookPage() {
  const { webhookId = "" } = useParams<{ webhookId: string }>();
  const webhook = useQuery(webhookQuery(webhookId));
  const [recover, setRecover] = useState<RecoverStart | undefined>(undefined);
  const breadcrumb = <Link href={paths.webhooks}>← Webhooks</Link>;
  if (webhook.isPending || webhook.error) {
    return (
      <AppLayout title="Webhook endpoint" breadcrumb={breadcrumb}>
        {webhook.error ? (
          <ErrorState error={webhook.error} onRetry={() => void webhook.refetch()} />
        ) : (
          <Loading label="Loading the endpoint…" />
        )}
      </AppLayout>
    );
  }
  const data = webhook.data;
  // Enabled again: what it missed is everything since it was disabled, missed events included.
  const enabledAgain = (disabledSince: string | null) =>
    setRecover({
      since: disabledSince ? new Date(disabledSince) : lastDay().since,
      includeMissed: true,
      enabledAgain: true,
    });
  return (
    <AppLayout title="Webhook endpoint" breadcrumb={breadcrumb}>
      <DisabledNotice webhook={data} />
      <Settings webhook={data} onEnabled={enabledAgain} />
      <WebhookHealth webhookId={data.id} />
      <Recover webhook={data} onOpen={() => setRecover(lastDay())} />
      <SendTestEvent webhook={data} />
      <DeliveriesTable webhookId={data.id} />
      <RecoverDialog webhookId={data.id} start={recover} onClose={() => setRecover(undefined)} />
    </AppLayout>
  );
}
