/** One endpoint: its settings, enable/disable, Rotate secret, Send test event, and its deliveries. */
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "wouter";
import { webhookQuery } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { paths } from "../../routes.ts";
import { DeliveriesTable } from "./deliveries.tsx";
import { EnableToggle, RotateSecret, SendTestEvent } from "./webhook-actions.tsx";
import { WebhookStatus } from "./webhooks.tsx";

export function WebhookPage() {
  const { webhookId = "" } = useParams<{ webhookId: string }>();
  const webhook = useQuery(webhookQuery(webhookId));
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
  return (
    <AppLayout title="Webhook endpoint" breadcrumb={breadcrumb}>
      <section className="card" aria-labelledby="endpoint-settings">
        <h2 id="endpoint-settings" className="visually-hidden">
          Settings
        </h2>
        <dl className="details">
          <dt>Endpoint URL</dt>
          <dd className="mono break">{data.url}</dd>
          <dt>Status</dt>
          <dd>
            <WebhookStatus webhook={data} />
          </dd>
          <dt>Events</dt>
          <dd>
            <ul className="tags">
              {data.events.map((event) => (
                <li key={event} className="tag mono">
                  {event}
                </li>
              ))}
            </ul>
          </dd>
          {data.description ? (
            <>
              <dt>Description</dt>
              <dd>{data.description}</dd>
            </>
          ) : null}
          <dt>Created</dt>
          <dd>{formatDateTime(data.created_at)}</dd>
          <dt>Secret rotated</dt>
          <dd>{formatDateTime(data.secret_rotated_at, "Never")}</dd>
        </dl>
        <div className="button-row">
          <EnableToggle webhook={data} />
          <RotateSecret webhook={data} />
        </div>
      </section>
      <SendTestEvent webhook={data} />
      <DeliveriesTable webhookId={data.id} />
    </AppLayout>
  );
}
