/** Workspace settings → Developers → Webhooks: the endpoints with their recent success rate, and Add endpoint. */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { type Webhook, webhooksQuery } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { EmptyState, ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { webhookPath } from "../../routes.ts";
import { CreateEndpointDialog } from "./webhook-create.tsx";
import { SuccessRate } from "./webhook-stats.tsx";

const DISABLED_REASONS: Record<NonNullable<Webhook["disabled_reason"]>, string> = {
  manual: "disabled",
  endpoint_gone: "disabled: the endpoint answered 410 Gone",
  failing: "disabled: every delivery failed for 5 days",
};

export function WebhookStatus({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled) return <span className="badge badge-success">Enabled</span>;
  return (
    <span className="badge badge-danger">
      {`${DISABLED_REASONS[webhook.disabled_reason ?? "manual"].replace(/^d/, "D")}`}
    </span>
  );
}

export function WebhooksPage() {
  const webhooks = useQuery(webhooksQuery);
  const [adding, setAdding] = useState(false);
  return (
    <AppLayout
      title="Webhooks"
      actions={
        <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
          Add endpoint
        </button>
      }
    >
      <p className="lead">
        Each endpoint receives the events it subscribes to as signed HTTPS POSTs (Standard Webhooks). Verify every
        delivery with its signing secret, for example with <code>@service/webhook-verifier</code>.
      </p>
      {webhooks.isPending ? <Loading label="Loading endpoints…" /> : null}
      {webhooks.error ? <ErrorState error={webhooks.error} onRetry={() => void webhooks.refetch()} /> : null}
      {webhooks.data && webhooks.data.data.length === 0 ? (
        <EmptyState title="No endpoints yet">
          <p>Add an HTTPS endpoint to receive events as they happen.</p>
        </EmptyState>
      ) : null}
      {webhooks.data && webhooks.data.data.length > 0 ? (
        <table className="table">
          <caption className="visually-hidden">Webhook endpoints of this workspace, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Events</th>
              <th scope="col">Status</th>
              <th scope="col">Success rate (24 h)</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {webhooks.data.data.map((webhook) => (
              <tr key={webhook.id}>
                <th scope="row" data-label="Endpoint">
                  <Link href={webhookPath(webhook.id)} className="mono break">
                    {webhook.url}
                  </Link>
                  {webhook.description ? <span className="muted block">{webhook.description}</span> : null}
                </th>
                <td data-label="Events">
                  <ul className="tags">
                    {webhook.events.map((event) => (
                      <li key={event} className="tag mono">
                        {event}
                      </li>
                    ))}
                  </ul>
                </td>
                <td data-label="Status">
                  <WebhookStatus webhook={webhook} />
                </td>
                <td data-label="Success rate (24 h)">
                  <SuccessRate webhookId={webhook.id} />
                </td>
                <td data-label="Created">{formatDateTime(webhook.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {webhooks.data?.has_more ? <p className="muted">Showing the newest {webhooks.data.data.length}.</p> : null}
      <CreateEndpointDialog open={adding} onClose={() => setAdding(false)} />
    </AppLayout>
  );
}
